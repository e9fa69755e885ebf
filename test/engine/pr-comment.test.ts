import { initialReadiness, type Entry } from '../../src/domain/entry.js';
import { reason, type Reason } from '../../src/domain/reasons.js';
import type { StatusCheck, TestRun } from '../../src/domain/run.js';
import type { PrState } from '../../src/domain/states.js';
import { commitStatusFor, commitStatusKey } from '../../src/engine/commit-status.js';
import { commentMarker, prCommentFor, prCommentKey } from '../../src/engine/pr-comment.js';

const AT = '2026-11-22T10:00:00.000Z';

function entry(state: PrState, over: Partial<Entry> = {}): Entry {
  return {
    id: 'e1',
    queueId: 'q1',
    seq: 1,
    prNumber: 7,
    prTitle: 'Add a widget',
    prSha: 'head7',
    prBaseBranch: 'main',
    prAuthor: 'dev',
    state,
    stateChangedAt: AT,
    submittedAt: AT,
    readyAt: null,
    priorityValue: 2,
    priorityName: 'medium',
    usedDefaultPriorityName: null,
    noBatch: false,
    readiness: initialReadiness(),
    reason: null,
    testRunId: null,
    retriesUsed: 0,
    mergeIntent: null,
    mergeCommitSha: null,
    history: [],
    ...over,
  };
}

function run(status: TestRun['status'], statusChecks: StatusCheck[], requiredStatuses = ['ci', 'lint']): TestRun {
  return {
    id: 'r1',
    queueId: 'q1',
    kind: 'main',
    status,
    unitId: 'u1',
    prs: [{ entryId: 'e1', prNumber: 7, prSha: 'head7', prTitle: 'Add a widget' }],
    dependencyEntryIds: [],
    attempt: 1,
    testBranch: 'mergeq/main/r1',
    testBranchSha: 't1',
    baseSha: 'b1',
    createdAt: AT,
    finishedAt: AT,
    requiredStatuses,
    requiredStatusesSource: 'branch_protection',
    statusChecks,
    conflictEntryId: null,
    cancelReason: null,
    cleanedUp: false,
  };
}

const failedChecks: Reason = reason('tests_failed', 'failing checks: ci, lint');
const allWait = reason('all_targets_wait', 'impacts every target: joins the queue when that restarts at most 9 of the runs in flight (14 when it began to wait), by … at the latest');
/** An `ALL` PR waiting since AT for a quieter moment to join (all-admission.ts). */
const waitingAll = entry('NOT_READY', { reason: allWait, history: [{ state: 'NOT_READY', at: AT, reason: allWait }] });
const failedRun = run('failed', [
  { context: 'ci', state: 'failure', url: 'https://ci.example.com/runs/1' },
  { context: 'lint', state: 'error', url: null },
  { context: 'docs', state: 'failure', url: 'https://ci.example.com/runs/3' }, // not required
  { context: 'unit', state: 'success', url: 'https://ci.example.com/runs/4' },
]);

describe('the PR comment', () => {
  const M = '<!-- mergeq:main -->';

  test.each<[string, Entry, number | undefined, TestRun | undefined, string]>([
    ['not ready', entry('NOT_READY'), undefined, undefined, '⏳ **Waiting** to join the merge queue of `main` until it is ready (open, not a draft, mergeable).'],
    [
      'an ALL PR waiting for fewer runs in flight, with the time it joins at the latest',
      waitingAll,
      undefined,
      undefined,
      '⏳ **Waiting** to join the merge queue of `main`: it impacts every target, so it joins when that restarts few of the runs in flight, by 2026-11-22 12:00 UTC at the latest.',
    ],
    ['queued', entry('PENDING'), 3, undefined, '⏳ **Queued** at position 3 in the merge queue of `main`.'],
    ['queued, position unknown', entry('PENDING'), undefined, undefined, '⏳ **Queued** in the merge queue of `main`.'],
    ['testing', entry('TESTING'), 1, undefined, '🧪 **Testing** in the merge queue of `main`.'],
    ['tests passed', entry('TESTS_PASSED'), 1, undefined, '✅ **Tests passed** in the merge queue of `main`: merging in queue order.'],
    ['checking a failure', entry('PENDING_FAILURE'), 1, undefined, '🔍 **A test run failed** in the merge queue of `main`: checking whether this pull request caused it.'],
    ['merged', entry('MERGED', { mergeCommitSha: '0123456789abcdef' }), undefined, undefined, '✅ **Merged** by the merge queue of `main` as 0123456.'],
    [
      'failed, with the failing required checks of its run',
      entry('FAILED', { reason: failedChecks, testRunId: 'r1' }),
      undefined,
      failedRun,
      [
        '❌ **Failed** in the merge queue of `main`: failing checks: ci, lint.',
        '',
        'Failing checks:',
        '- [ci](https://ci.example.com/runs/1)',
        '- lint',
      ].join('\n'),
    ],
    [
      'failed without a run (it was archived)',
      entry('FAILED', { reason: failedChecks }),
      undefined,
      undefined,
      '❌ **Failed** in the merge queue of `main`: failing checks: ci, lint.',
    ],
    [
      'failed on a merge conflict: no checks',
      entry('FAILED', { reason: reason('merge_conflict', 'the test branch could not be built: #7 conflicts with the target branch or the pull requests before it') }),
      undefined,
      { ...run('failed', []), conflictEntryId: 'e1' },
      '❌ **Failed** in the merge queue of `main`: the test branch could not be built: #7 conflicts with the target branch or the pull requests before it.',
    ],
    [
      'cancelled, with the reason',
      entry('CANCELLED', { reason: reason('pr_updated', 'new commits were pushed') }),
      undefined,
      undefined,
      '🚫 **Removed** from the merge queue of `main`: new commits were pushed.',
    ],
  ])('%s', (_name, e, position, r, text) => {
    expect(prCommentFor(e, { branch: 'main', position, run: r })).toEqual({ marker: M, body: `${M}\n${text}` });
  });

  test('one marker per queue branch, at the start of the body', () => {
    expect(commentMarker('main')).toBe('<!-- mergeq:main -->');
    expect(commentMarker('release/2.x')).toBe('<!-- mergeq:release/2.x -->');
    expect(commentMarker('a->b')).toBe('<!-- mergeq:a-&gt;b -->');
    const body = prCommentFor(entry('TESTING'), { branch: 'release/2.x', position: 1, run: undefined }).body;
    expect(body.startsWith('<!-- mergeq:release/2.x -->\n')).toBe(true);
  });

  test('check names are escaped and links kept whole; only http(s) links are links', () => {
    const r = run('failed', [
      { context: 'unit_tests [linux]', state: 'failure', url: 'https://ci.example.com/a (1)' },
      { context: 'e2e', state: 'failure', url: 'javascript:alert(1)' },
    ], []);
    const body = prCommentFor(entry('FAILED', { reason: failedChecks, testRunId: 'r1' }), { branch: 'main', position: undefined, run: r }).body;
    expect(body.split('\n').slice(-2)).toEqual(['- [unit\\_tests \\[linux\\]](https://ci.example.com/a%20%281%29)', '- e2e']);
  });

  test('nothing is said of a PR going its way; once something was, the key changes with the state, and with the reason once ended; not with the position', () => {
    for (const state of ['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE', 'MERGED'] as const) expect(prCommentKey(entry(state))).toBeNull();
    expect(prCommentKey(entry('CANCELLED', { reason: reason('cancelled_by_user', 'cancelled') }))).toBeNull();
    const told = { reported: { comment: 'FAILED|tests_failed|x' } };
    expect(prCommentKey(entry('PENDING', told))).toBe(prCommentKey(entry('PENDING', { ...told, seq: 9, readyAt: AT })));
    expect(prCommentKey(entry('PENDING', told))).not.toBe(prCommentKey(entry('TESTING', told)));
    expect(prCommentKey(entry('MERGED', told))).toBe('MERGED');
    expect(prCommentKey(entry('PENDING_FAILURE', { ...told, reason: reason('suspect', 'a') }))).toBe(
      prCommentKey(entry('PENDING_FAILURE', { ...told, reason: reason('failure_confirmed', 'b') })),
    );
    expect(prCommentKey(entry('FAILED', { reason: reason('tests_failed', 'failing checks: ci') }))).not.toBe(
      prCommentKey(entry('FAILED', { reason: reason('tests_failed', 'failing checks: lint') })),
    );
    expect(prCommentKey(entry('CANCELLED', { reason: reason('pr_closed', 'x') }))).not.toBe(prCommentKey(entry('CANCELLED', { reason: reason('pr_updated', 'x') })));
    // An ALL PR that starts waiting for a quieter moment is reported again (both stay NOT_READY).
    expect(prCommentKey(waitingAll)).not.toBe(prCommentKey(entry('NOT_READY')));
  });

  test('the commit status of an ALL PR waiting to join says why, and is reported again when the wait starts', () => {
    expect(commitStatusFor(waitingAll, undefined, 'main')).toMatchObject({ state: 'pending', description: 'Impacts every target: waiting for fewer runs in flight to join' });
    expect(commitStatusFor(entry('NOT_READY'), undefined, 'main').description).toBe('Waiting until ready');
    expect(commitStatusKey(waitingAll)).not.toBe(commitStatusKey(entry('NOT_READY')));
  });
});

describe('a failure forgiven as a flake (flaky-tests.md, "The queue and flakes")', () => {
  const forgiven = reason('flaky_tests', 'its run failed only on known flaky or quarantined tests (checkout retries): rerun 1 of 2');

  test('the status and the comment say the PR is rerun, and which tests were forgiven', () => {
    const e = entry('PENDING_FAILURE', { reason: forgiven });
    expect(commitStatusFor(e, undefined, 'main')).toMatchObject({ state: 'pending', description: `Rerunning: ${forgiven.message}` });
    expect(prCommentFor(e, { branch: 'main', position: undefined, run: undefined }).body).toContain('**Rerunning**');
    expect(prCommentFor(e, { branch: 'main', position: undefined, run: undefined }).body).toContain('checkout retries');
    // Reported anew: an ordinary PENDING_FAILURE does not say it.
    expect(commitStatusKey(e)).not.toBe(commitStatusKey(entry('PENDING_FAILURE')));
    expect(prCommentKey(e)).not.toBe(prCommentKey(entry('PENDING_FAILURE')));
  });

  test('the comment of a PR that merged after all says what was forgiven', () => {
    const e = entry('MERGED', { mergeCommitSha: 'abcdef1234', history: [{ state: 'PENDING_FAILURE', at: AT, reason: forgiven }] });
    expect(prCommentFor(e, { branch: 'main', position: undefined, run: undefined }).body).toContain('forgiven as a flake on the way: its run failed only on known flaky');
  });
});

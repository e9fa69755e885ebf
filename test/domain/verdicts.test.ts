import { initialReadiness, type Entry } from '../../src/domain/entry.js';
import { newQueueDoc, type QueueDoc } from '../../src/domain/queue.js';
import { reason, type ReasonCode } from '../../src/domain/reasons.js';
import type { StatusCheck, TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';
import type { PrState } from '../../src/domain/states.js';
import { latestVerdict, withVerdicts } from '../../src/domain/verdict/attach.js';

/**
 * The verdict table of docs/queue-rules.md ("Verdicts") on hand-made queue documents: the transitions
 * the end-to-end tests (test/e2e/sandbox-verdicts.test.ts) do not reach — a conflict, a timeout, a
 * git host failure, a removal by policy or by hand, a restart by priority — and what carries none.
 */

const T0 = Date.parse('2026-11-22T10:00:00.000Z');
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();

function entry(id: string, prNumber: number, steps: [PrState, ReasonCode, string][]): Entry {
  const history = steps.map(([state, code, message], i) => ({ state, at: at(i), reason: reason(code, message) }));
  const last = history.at(-1)!;
  return {
    id, queueId: 'q', seq: prNumber, prNumber, prTitle: `change ${prNumber}`, prSha: `sha${prNumber}`, prBaseBranch: 'main', prAuthor: 'dev',
    state: last.state, stateChangedAt: last.at, submittedAt: at(0), readyAt: at(1), priorityValue: 2, priorityName: 'medium', usedDefaultPriorityName: null,
    noBatch: false, readiness: initialReadiness(), reason: last.reason, testRunId: null, retriesUsed: 0, mergeIntent: null, mergeCommitSha: null, history,
  };
}

function run(id: string, prs: Entry[], status: TestRun['status'], checks: StatusCheck[], over: Partial<TestRun> = {}): TestRun {
  return {
    id, queueId: 'q', kind: 'main', status, unitId: `u-${id}`, prs: prs.map((e) => ({ entryId: e.id, prNumber: e.prNumber, prSha: e.prSha, prTitle: e.prTitle })),
    dependencyEntryIds: prs.slice(0, -1).map((e) => e.id), attempt: 0, testBranch: `mergeq/main/${id}`, testBranchSha: `t-${id}`, baseSha: 'base0000000',
    startSha: null, createdAt: at(1), finishedAt: at(2), requiredStatuses: ['ci'], requiredStatusesSource: 'queue', statusChecks: checks,
    conflictEntryId: null, cancelReason: null, cleanedUp: false, ...over,
  };
}

/** The verdict the last transition of `e` gets when `e` reaches it in a commit over a document without it. */
function verdictOf(e: Entry, runs: TestRun[] = [], others: Entry[] = []) {
  const before = { ...e, history: e.history.slice(0, -1) };
  const doc = (x: Entry): QueueDoc => ({ ...newQueueDoc({ id: 'q', orgId: 'o', repo: { host: 'github.com', owner: 'acme', name: 'w' }, branch: 'main', settings: defaultSettings(), at: at(0) }), entries: [...others, x], runs, targetSha: 'target123456' });
  const next = withVerdicts(doc(before), doc(e));
  return latestVerdict(next.entries.at(-1)!);
}

const queued: [PrState, ReasonCode, string][] = [
  ['NOT_READY', 'submitted', 'submitted'],
  ['PENDING', 'ready', 'ready'],
  ['TESTING', 'test_started', 'testing'],
];

test('a test branch that could not be built: conflict, naming the PR before it on the branch', () => {
  const a = entry('a', 1, queued);
  const b = entry('b', 2, [...queued, ['FAILED', 'merge_conflict', 'the test branch could not be built']]);
  const r = run('r1', [a, b], 'failed', [], { conflictEntryId: 'b' });
  expect(verdictOf(b, [r], [a])).toMatchObject({ code: 'conflict', message: 'conflict: it does not merge cleanly with #1', evidence: { withPrNumber: 1, withCommit: null, runId: 'r1' } });
});

test('a merge the git host refused as a conflict, with no run to show it: conflict with the target head', () => {
  const b = entry('b', 2, [...queued, ['FAILED', 'merge_conflict', 'GitHub refused the merge: conflict']]);
  expect(verdictOf(b)).toMatchObject({ code: 'conflict', evidence: { withPrNumber: null, withCommit: 'target123456' } });
});

test('a run with no verdict in time, or a git host failure: infrastructure', () => {
  const timedOut = entry('a', 1, [...queued, ['FAILED', 'test_timeout', 'no verdict within 60 minutes']]);
  const r = run('r1', [timedOut], 'timed_out', [{ context: 'ci', state: 'pending', url: null }]);
  expect(verdictOf(timedOut, [r])).toMatchObject({ code: 'infrastructure', message: "infrastructure: CI gave no verdict in time; not this pull request's tests", evidence: { kind: 'timeout' } });
  const host = entry('b', 2, [...queued, ['FAILED', 'github_error', 'GitHub answered 502']]);
  expect(verdictOf(host)).toMatchObject({ code: 'infrastructure', evidence: { kind: 'git_host', detail: 'GitHub answered 502' } });
});

test('a failure whose checks only errored and no test failed: infrastructure; a failing check makes it a culprit', () => {
  const a = entry('a', 1, [...queued, ['FAILED', 'tests_failed', 'failing checks: ci']]);
  const errored = run('r1', [a], 'failed', [{ context: 'ci', state: 'error', url: 'https://ci.example/1' }]);
  expect(verdictOf(a, [errored])).toMatchObject({ code: 'infrastructure', evidence: { kind: 'error', checks: [{ context: 'ci', state: 'error' }] } });
  const failed = run('r1', [a], 'failed', [{ context: 'ci', state: 'failure', url: 'https://ci.example/1' }]);
  expect(verdictOf(a, [failed])).toMatchObject({ code: 'culprit', evidence: { isolation: { method: 'own_run' }, failingChecks: [{ context: 'ci', state: 'failure' }] } });
});

test('a failure on known flaky tests only, out of reruns: flaky, naming them', () => {
  const a = entry('a', 1, [...queued, ['FAILED', 'tests_failed', 'failing checks: ci']]);
  const r = run('r1', [a], 'failed', [{ context: 'ci', state: 'failure', url: null }], {
    testResults: { receivedAt: at(2), failedTests: [{ testCaseId: 't1', name: 'cache warms up', knownFlaky: true, quarantined: false }] },
  });
  expect(verdictOf(a, [r])).toMatchObject({ code: 'flaky', evidence: { tests: [{ name: 'cache warms up', knownFlaky: true }] } });
});

test.each<[ReasonCode, string]>([
  ['pr_updated', 'policy'],
  ['pr_closed', 'policy'],
  ['not_mergeable', 'policy'],
  ['converted_to_draft', 'policy'],
  ['cancelled_by_user', 'manual'],
  ['merged_elsewhere', 'manual'],
])('CANCELLED %s: %s', (code, verdict) => {
  const a = entry('a', 1, [...queued, ['CANCELLED', code, `because ${code}`]]);
  expect(verdictOf(a)).toEqual({ code: verdict, message: `${verdict}: because ${code}`, at: at(3), evidence: { cause: code, detail: `because ${code}` } });
});

test.each<[ReasonCode, string]>([
  ['urgent_preemption', 'policy'],
  ['restarted_by_user', 'manual'],
  ['base_moved', 'manual'],
])('a restart by %s: %s', (code, verdict) => {
  const a = entry('a', 1, [...queued, ['PENDING', code, `because ${code}`]]);
  expect(verdictOf(a)?.code).toBe(verdict);
});

test('a PR ahead failed: bystander naming it, with the runs and minutes it cost', () => {
  const bad = entry('bad', 1, [...queued, ['FAILED', 'tests_failed', 'failing checks: ci']]);
  const b = entry('b', 2, [...queued, ['PENDING', 'ahead_failed', '#1 ahead of it failed; retesting without it']]);
  const r = run('r1', [bad, b], 'cancelled', [], { finishedAt: at(3) });
  expect(verdictOf(b, [r], [bad])).toMatchObject({
    code: 'bystander',
    message: 'not this pull request: #1 broke the run it was in; retested without it',
    evidence: { cause: 'ahead_failed', culprits: [{ prNumber: 1, entryId: 'bad' }], cost: { runs: 1, minutes: 2 } },
  });
});

test('submitting, testing, passing and merging carry no verdict', () => {
  const a = entry('a', 1, [...queued, ['TESTS_PASSED', 'tests_passed', 'passed'], ['MERGED', 'merged', 'merged']]);
  expect(verdictOf(a)).toBeNull();
});

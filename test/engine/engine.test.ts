import { pino } from 'pino';
import type { QueueDoc } from '../../src/domain/queue.js';
import { NO_GIT_HOST_NOTE } from '../../src/githost/githost.js';
import { NoGitHost } from '../../src/githost/none.js';
import { SandboxNotFoundError } from '../../src/githost/sandbox/sandbox-host.js';
import { Engine } from '../../src/engine/engine.js';
import { harness, repo, silentLogger, MIN } from './harness.js';

const ENDED = ['MERGED', 'FAILED', 'CANCELLED'];

describe('engine: pull requests flow through the queue', () => {
  it('tests and merges a queue of PRs in order, cleaning up its test branches', async () => {
    const h = await harness();
    const prs = [await h.submit(), await h.submit(), await h.submit()];
    await h.settle();
    expect(await h.states(...prs)).toEqual(['TESTING', 'TESTING', 'TESTING']);
    expect(h.sandbox.liveTestBranches(repo)).toHaveLength(3);

    await h.advance(10);
    expect(await h.states(...prs)).toEqual(['MERGED', 'MERGED', 'MERGED']);
    expect(h.mergeOrder()).toEqual(prs);
    for (const n of prs) expect(h.sandbox.mergeCount(repo, n)).toBe(1);
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
    const doc = await h.doc();
    expect(doc.entries).toEqual([]);
    expect(doc.runs).toEqual([]);
    expect(doc.targetSha).toBe(await h.sandbox.getBranchHead(repo, 'main'));
    const first = await h.entry(prs[0]!);
    expect(first.mergeCommitSha).toBeTruthy();
    expect(first.history.map((t) => t.state)).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'MERGED']);
  });

  it('reports one pending status while a PR is in the queue, and one final status', async () => {
    const h = await harness({ settings: { concurrency: 1 } });
    const a = await h.submit();
    const b = await h.submit();
    await h.advance(30);
    expect(await h.states(a, b)).toEqual(['MERGED', 'MERGED']);
    const shaB = h.sandbox.pullRequest(repo, b)!.headSha;
    const reports = h.sandbox.reportedStatuses(repo, shaB).map((r) => [r.context, r.state, r.description]);
    // Queued, then tested: the one pending status said while it waited stands (a GitHub write saved).
    expect(reports).toEqual([
      ['mergeq (main)', 'pending', 'Queued #2'],
      ['mergeq (main)', 'success', 'Merged'],
    ]);
  });

  it('reports no commit status when statusCheckEnabled is off', async () => {
    const h = await harness({ settings: { statusCheckEnabled: false } });
    const a = await h.submit();
    await h.advance(15);
    expect((await h.entry(a)).state).toBe('MERGED');
    expect(h.sandbox.reportedStatuses(repo, h.sandbox.pullRequest(repo, a)!.headSha)).toEqual([]);
  });

  it('comments only when a person must read something: a PR that merges gets none, a failure one comment', async () => {
    const said = new Map<number, string[]>();
    const h = await harness({
      settings: { concurrency: 1, flakeRetries: 1 },
      wrapGitHost: (g) => {
        const upsert = g.upsertPullRequestComment!.bind(g);
        g.upsertPullRequestComment = (r, pr, comment) => {
          said.set(pr, [...(said.get(pr) ?? []), comment.body.split('\n')[1]!]);
          return upsert(r, pr, comment);
        };
        return g;
      },
    });
    const comments = (pr: number) => h.sandbox.pullRequestComments(repo, pr);
    const a = await h.submit();
    const bad = await h.submit({ bad: true });
    await h.advance(40);
    expect(await h.states(a, bad)).toEqual(['MERGED', 'FAILED']);
    expect(said.get(a)).toBeUndefined();
    expect(comments(a)).toEqual([]);
    // Queued, tested, suspected and rerun said nothing; the failure is said once, with its checks.
    expect(said.get(bad)).toEqual(['❌ **Failed** in the merge queue of `main`: failing checks: ci.']);
    expect(comments(bad)).toHaveLength(1);
    expect(comments(bad)[0]!.edits).toBe(0);
    expect(comments(bad)[0]!.body).toMatch(
      /^<!-- mergeq:main -->\n❌ \*\*Failed\*\* in the merge queue of `main`: failing checks: ci\.\n\nFailing checks:\n- \[ci\]\(https:\/\/ci\.sandbox\.invalid\/runs\/\d+\)\n\n/,
    );
    // Then its verdict (docs/verdicts.md), the author @-mentioned: a culprit is the one verdict that asks them to act.
    expect(comments(bad)[0]!.body).toMatch(
      /\n\*\*Verdict: `culprit`\*\* — @sandbox-user culprit: this pull request fails the required checks \(failing checks: ci\)\n\nIsolated by own run: its own run failed 2 times \(reruns included\)$/,
    );
  });

  it('says the latest of a PR\'s changes last, though the first comment is slow to reach the host', async () => {
    const said: string[] = [];
    let calls = 0;
    const h = await harness({
      wrapGitHost: (g) => {
        const upsert = g.upsertPullRequestComment!.bind(g);
        g.upsertPullRequestComment = async (r, pr, comment) => {
          // The first request is slow: meanwhile a second commit (a webhook) has more to say.
          if (calls++ === 0) for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
          said.push(comment.body.split('\n')[1]!);
          return upsert(r, pr, comment);
        };
        return g;
      },
    });
    const a = await h.submit({}, false);
    // A PR that was told something before (a failed run forgiven as a flake, say): its comment is kept true.
    const moveTo = (state: 'TESTING' | 'MERGED') => (q: QueueDoc) => ({
      ...q,
      entries: q.entries.map((e) => (e.prNumber === a ? { ...e, state, reported: { ...e.reported, comment: 'PENDING_FAILURE|flaky_tests|m' } } : e)),
    });
    // Both read the same document; the second commits after the first, on a conflict.
    await Promise.all([
      h.engine.recordFacts(h.queueId, moveTo('TESTING'), { reconcile: false }),
      h.engine.recordFacts(h.queueId, moveTo('MERGED'), { reconcile: false }),
    ]);
    await h.settle();
    // The second change came while the first was being said: it is said after it, and nothing is left stale.
    expect(said.at(-1)).toBe('✅ **Merged** by the merge queue of `main`.');
    expect(h.sandbox.pullRequestComments(repo, a)).toEqual([
      expect.objectContaining({ body: '<!-- mergeq:main -->\n✅ **Merged** by the merge queue of `main`.' }),
    ]);
  });

  it('posts no comment when commentsEnabled is off, and a failing comment does not hold the queue up', async () => {
    const off = await harness({ settings: { commentsEnabled: false } });
    const a = await off.submit();
    await off.advance(15);
    expect((await off.entry(a)).state).toBe('MERGED');
    expect(off.sandbox.pullRequestComments(repo, a)).toEqual([]);

    const h = await harness({ settings: { flakeRetries: 0 } });
    h.sandbox.failNext('upsertPullRequestComment', 3);
    const bad = await h.submit({ bad: true });
    const b = await h.submit();
    await h.advance(30);
    expect(await h.states(bad, b)).toEqual(['FAILED', 'MERGED']);
    expect(h.sandbox.pullRequestComments(repo, bad).map((c) => c.body)).toEqual([expect.stringContaining('❌ **Failed**')]);
  });

  it('says nothing again after a restart: what was said is kept with each entry', async () => {
    const h = await harness();
    const prs = [await h.submit(), await h.submit(), await h.submit()];
    await h.settle();
    const statuses = () => prs.map((pr) => h.sandbox.reportedStatuses(repo, h.sandbox.pullRequest(repo, pr)!.headSha).length);
    const edits = () => prs.map((pr) => h.sandbox.pullRequestComments(repo, pr)[0]?.edits ?? -1);
    const before = { statuses: statuses(), edits: edits() };
    expect(before.statuses.every((n) => n > 0)).toBe(true);

    const engine = h.restartEngine();
    engine.start();
    await h.settle();
    expect({ statuses: statuses(), edits: edits() }).toEqual(before);
    await engine.stop();
  });

  it('fails a bad PR with tests_failed; the PRs behind it restart without it and merge', async () => {
    const h = await harness({ settings: { flakeRetries: 1 } });
    const a = await h.submit();
    const bad = await h.submit({ bad: true });
    const c = await h.submit();
    await h.advance(120);
    expect(await h.states(a, bad, c)).toEqual(['MERGED', 'FAILED', 'MERGED']);
    const failed = await h.entry(bad);
    expect(failed.reason?.code).toBe('tests_failed');
    const behind = await h.entry(c);
    const states = behind.history.map((t) => t.state);
    // It was testing on top of the bad PR, went back to PENDING, and was tested again.
    expect(states.filter((s) => s === 'TESTING').length).toBeGreaterThanOrEqual(2);
    expect(states.indexOf('PENDING', states.indexOf('TESTING'))).toBeGreaterThan(-1);
    expect(h.mergeOrder()).toEqual([a, c]);
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
  });

  it('cancels a PR mid-test: its run is dropped and the PR behind restarts without it', async () => {
    const h = await harness();
    const a = await h.submit();
    const b = await h.submit();
    await h.advance(5);
    expect(await h.states(a, b)).toEqual(['TESTING', 'TESTING']);
    await h.cancel(a);
    await h.settle();
    expect((await h.entry(a)).state).toBe('CANCELLED');
    expect((await h.entry(a)).reason?.code).toBe('cancelled_by_user');
    await h.advance(30);
    expect(await h.states(a, b)).toEqual(['CANCELLED', 'MERGED']);
    expect(h.sandbox.mergeCount(repo, a)).toBe(0);
    // The run that merged b did not contain a.
    const mergedRunBranches = h.sandbox.ci.runs.filter((r) => r.prNumbers.includes(b) && r.state === 'reported');
    expect(mergedRunBranches.some((r) => !r.prNumbers.includes(a))).toBe(true);
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
  });

  it('fails a PR whose merge the git host refuses, and merges the ones behind it without it', async () => {
    const h = await harness({ ci: { hold: true } });
    const a = await h.submit();
    const b = await h.submit();
    await h.settle();
    // Someone lands a change on main outside the queue that conflicts with a.
    const outside = h.sandbox.openPullRequest(repo, { title: 'hotfix' });
    h.sandbox.addConflict(repo, 'textual', outside.number, a);
    await h.sandbox.mergePullRequest(repo, outside.number, { expectedSha: outside.headSha, method: 'squash' });

    for (const run of h.sandbox.ci.held()) h.sandbox.ci.release(run, 'success');
    await h.settle();
    const refused = await h.entry(a);
    expect(refused.state).toBe('FAILED');
    expect(refused.reason?.code).toBe('merge_conflict');
    expect(h.sandbox.mergeCount(repo, a)).toBe(0);
    // b's passing run contained a: it is retested without it before merging.
    expect((await h.entry(b)).state).not.toBe('MERGED');
    for (let i = 0; i < 5 && (await h.entry(b)).state !== 'MERGED'; i++) {
      for (const run of h.sandbox.ci.held()) h.sandbox.ci.release(run, 'success');
      await h.settle();
    }
    expect((await h.entry(b)).state).toBe('MERGED');
    const lastRunOfB = h.sandbox.ci.runs.filter((r) => r.prNumbers.includes(b)).at(-1)!;
    expect(lastRunOfB.prNumbers).toEqual([b]);
  });

  it('fails a run that gets no verdict within testingTimeoutMinutes (a wake-up, not a new fact)', async () => {
    const h = await harness({ settings: { testingTimeoutMinutes: 30, flakeRetries: 0, concurrency: 1 }, ci: { hold: true } });
    h.engine.start();
    const a = await h.submit();
    await h.advance(29);
    expect((await h.entry(a)).state).toBe('TESTING');
    await h.advance(2);
    const timedOut = await h.entry(a);
    expect(timedOut.state).toBe('FAILED');
    expect(timedOut.reason?.code).toBe('test_timeout');
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
    await h.engine.stop();
  });

  it('finds CI results by polling when no status event arrives', async () => {
    const h = await harness({ listen: false, engine: { pollIntervalMs: MIN } });
    h.engine.start();
    const a = await h.submit();
    const b = await h.submit();
    await h.advance(9);
    expect(await h.states(a, b)).toEqual(['TESTING', 'TESTING']);
    await h.advance(3);
    expect(await h.states(a, b)).toEqual(['MERGED', 'MERGED']);
    await h.engine.stop();
  });

  it('polls NOT_READY PRs until they become ready', async () => {
    const h = await harness({ engine: { pollIntervalMs: MIN } });
    h.engine.start();
    const a = await h.submit({ draft: true });
    await h.advance(3);
    expect((await h.entry(a)).state).toBe('NOT_READY');
    expect((await h.entry(a)).readiness.isDraft).toBe(true);
    h.sandbox.update(repo, a, { draft: false });
    await h.advance(2);
    expect((await h.entry(a)).state).not.toBe('NOT_READY');
    await h.advance(15);
    expect((await h.entry(a)).state).toBe('MERGED');
    await h.engine.stop();
  });

  it('cancels a queued PR that gets new commits (pr_updated), seen when it is about to merge', async () => {
    const h = await harness({ ci: { hold: true } });
    const a = await h.submit();
    await h.settle();
    h.sandbox.pushCommit(repo, a);
    for (const run of h.sandbox.ci.held()) h.sandbox.ci.release(run, 'success');
    await h.settle();
    const entry = await h.entry(a);
    expect(entry.state).toMatch(/FAILED|CANCELLED/);
    expect(entry.reason?.code).toBe('pr_updated');
    expect(h.sandbox.mergeCount(repo, a)).toBe(0);
  });
});

describe('engine: direct merge', () => {
  it('merges an up-to-date PR whose own checks passed without a test run; a PR that is behind is tested', async () => {
    const h = await harness({ settings: { directMergeMode: 'always', concurrency: 1 } });
    const behind = h.sandbox.openPullRequest(repo);
    const landed = h.sandbox.openPullRequest(repo);
    await h.sandbox.mergePullRequest(repo, landed.number, { expectedSha: landed.headSha, method: 'squash' });
    const upToDate = h.sandbox.openPullRequest(repo);
    const unchecked = h.sandbox.openPullRequest(repo);
    for (const pr of [behind, upToDate]) h.sandbox.setStatuses(repo, pr.headSha, [{ context: 'ci', state: 'success', url: null }]);

    await h.enqueue(upToDate.number);
    await h.settle();
    const direct = await h.entry(upToDate.number);
    expect(direct.state).toBe('MERGED');
    expect(direct.reason?.code).toBe('direct_merge');
    expect(h.sandbox.ci.runs).toHaveLength(0);

    // Main moved again (it now holds upToDate): the other two are not up to date, or have no checks.
    await h.enqueue(behind.number);
    await h.enqueue(unchecked.number);
    await h.advance(30);
    expect(await h.states(behind.number, unchecked.number)).toEqual(['MERGED', 'MERGED']);
    expect((await h.entry(behind.number)).reason?.code).toBe('merged');
    expect(h.sandbox.ci.runs.length).toBeGreaterThanOrEqual(2);
  });
});

describe('engine: draft PRs for test branches (createPrsForTestingBranches)', () => {
  it('opens one draft PR per run, listing its PRs in order, and it is closed when the run ends', async () => {
    const h = await harness({ settings: { createPrsForTestingBranches: true } });
    const prs = [await h.submit(), await h.submit(), await h.submit()];
    await h.settle();
    const runs = (await h.doc()).runs;
    expect(runs).toHaveLength(3);
    const drafts = h.sandbox.testBranchPullRequests(repo);
    expect(drafts.map((d) => [d.head, d.base, d.draft, d.state])).toEqual(runs.map((r) => [r.testBranch, 'main', true, 'open']));
    expect(drafts.map((d) => d.title)).toEqual(['mergeq: testing PRs 1 on main', 'mergeq: testing PRs 1, 2 on main', 'mergeq: testing PRs 1, 2, 3 on main']);
    expect(drafts[2]!.body).toBe(
      [
        `Test run \`${runs[2]!.id}\` of the merge queue of \`main\`. The branch \`${runs[2]!.testBranch}\` is \`main\` with these pull requests merged, in this order:`,
        '',
        '- `#1`',
        '- `#2`',
        '- `#3`',
        '',
        'This draft pull request is temporary: mergeq closes it when the run ends (its branch is deleted). Do not merge it.',
      ].join('\n'),
    );
    // Numbered with the PRs people open, and not among them.
    expect(drafts.map((d) => d.number)).toEqual([4, 5, 6]);
    expect(h.sandbox.listPullRequests(repo).map((p) => p.number)).toEqual(prs);

    await h.advance(10);
    expect(await h.states(...prs)).toEqual(['MERGED', 'MERGED', 'MERGED']);
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
    expect(h.sandbox.testBranchPullRequests(repo).map((d) => d.state)).toEqual(['closed', 'closed', 'closed']);
  });

  it('opens none with the setting off', async () => {
    const h = await harness();
    const a = await h.submit();
    await h.settle();
    expect(h.sandbox.liveTestBranches(repo)).toHaveLength(1);
    await h.advance(10);
    expect((await h.entry(a)).state).toBe('MERGED');
    expect(h.sandbox.testBranchPullRequests(repo)).toEqual([]);
  });

  it('a draft PR that cannot be opened is logged, and the run goes on without it', async () => {
    const logged: { level: number; msg: string; error?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) });
    const h = await harness({ settings: { createPrsForTestingBranches: true }, engine: { logger } });
    h.sandbox.failNext('openDraftPullRequest', 1, () => Object.assign(new Error('Draft pull requests are not supported in this repository.'), { status: 422 }));
    const a = await h.submit();
    await h.settle();
    expect((await h.entry(a)).state).toBe('TESTING');
    expect(h.sandbox.testBranchPullRequests(repo)).toEqual([]);
    expect(logged).toEqual([
      expect.objectContaining({ msg: 'could not open the draft pull request of a test branch', error: 'Draft pull requests are not supported in this repository.' }),
    ]);
    await h.advance(10);
    expect((await h.entry(a)).state).toBe('MERGED');
    expect(h.sandbox.testBranchPullRequests(repo)).toEqual([]); // not tried again: best effort
  });
});

describe('engine: git host errors', () => {
  it('retries transient errors and carries on', async () => {
    const h = await harness();
    const a = await h.submit();
    h.sandbox.failNext('createTestBranch', 2);
    await h.settle();
    expect((await h.entry(a)).state).toBe('TESTING');
    h.sandbox.failNext('mergePullRequest', 2);
    await h.advance(10);
    expect((await h.entry(a)).state).toBe('MERGED');
  });

  it('fails a PR with github_error only after the retries are exhausted', async () => {
    const h = await harness();
    const a = await h.submit();
    const b = await h.submit();
    await h.settle();
    h.sandbox.failNext('mergePullRequest', 3);
    await h.advance(10);
    const failed = await h.entry(a);
    expect(failed.state).toBe('FAILED');
    expect(failed.reason?.code).toBe('github_error');
    await h.advance(30);
    expect((await h.entry(b)).state).toBe('MERGED');
    expect(h.sandbox.mergeCount(repo, a)).toBe(0);
  });

  it('tries a test branch again later when the host keeps failing, without failing anyone at once', async () => {
    const h = await harness({ settings: { concurrency: 1 } });
    h.engine.start();
    h.sandbox.failNext('createTestBranch', 1000);
    const a = await h.submit();
    await h.settle();
    expect((await h.entry(a)).state).toBe('TESTING');
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
    h.sandbox.clearInjectedFailures();
    await h.advance(1);
    expect(h.sandbox.liveTestBranches(repo)).toHaveLength(1);
    await h.advance(10);
    expect((await h.entry(a)).state).toBe('MERGED');
    await h.engine.stop();
  });
});

describe('engine: reports the git host refuses', () => {
  /** The warnings the engine logs about reporting on one PR's comment. */
  function capturingHarness() {
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const commentWarnings = (pr: number) => lines.filter((l) => l.report === 'comment' && l.pr === pr);
    return { commentWarnings, ready: harness({ engine: { logger }, settings: { flakeRetries: 0 } }) };
  }

  it('says once, in one line without a stack trace, that the git host does not know the PR, and does not ask again', async () => {
    const { commentWarnings, ready } = capturingHarness();
    const h = await ready;
    const a = await h.submit({ bad: true });
    await h.settle();
    h.sandbox.failNext('upsertPullRequestComment', 1000, () => new SandboxNotFoundError(`pull request #${a} does not exist`));
    await h.advance(30);
    expect((await h.entry(a)).state).toBe('FAILED'); // a failure is said in a comment
    expect(commentWarnings(a)).toEqual([
      expect.objectContaining({ status: 404, error: `pull request #${a} does not exist`, msg: 'could not report on the pull request; given up' }),
    ]);
    expect(commentWarnings(a)[0]).not.toHaveProperty('err');
  });

  it('stops trying to report on the PRs of a deleted queue', async () => {
    const { commentWarnings, ready } = capturingHarness();
    const h = await ready;
    const a = await h.submit({ bad: true });
    await h.settle();
    h.sandbox.failNext('upsertPullRequestComment', 1000);
    for (let i = 0; i < 60 && (await h.entry(a)).state !== 'FAILED'; i++) await h.advance(1);
    await h.settle();
    const tried = commentWarnings(a).length;
    expect(tried).toBeGreaterThanOrEqual(1);
    const doc = await h.doc();
    expect(await h.store.queues.deleteQueue(doc.id, doc.version)).toBe(true);
    h.engine.notify(doc.id);
    await h.advance(5);
    expect(commentWarnings(a)).toHaveLength(tried);
    expect(commentWarnings(a).map((l) => l.msg)).not.toContain('could not report on the pull request; given up');
  });
});

describe('engine: the none git host', () => {
  it('keeps PRs NOT_READY with mergeability UNSPECIFIED and says why', async () => {
    const h = await harness();
    const engine = new Engine({ store: h.store, gitHost: new NoGitHost(), clock: h.time, scheduler: h.time, logger: silentLogger });
    const a = await h.submit({}, false);
    await engine.reconcile(h.queueId);
    const entry = await h.entry(a);
    expect(entry.state).toBe('NOT_READY');
    expect(entry.readiness.gitHubMergeability).toBe('UNSPECIFIED');
    expect(entry.readiness.note).toBe(NO_GIT_HOST_NOTE);
  });
});

describe('engine: scheduling', () => {
  it('coalesces many notifications into few reconciles', async () => {
    const h = await harness();
    await h.submit();
    await h.settle();
    let loads = 0;
    const get = h.store.queues.getQueueById.bind(h.store.queues);
    h.store.queues.getQueueById = (id) => {
      loads++;
      return get(id);
    };
    for (let i = 0; i < 50; i++) h.engine.notify(h.queueId);
    await h.settle();
    expect(loads).toBeLessThanOrEqual(2);
  });

  it('stop() waits for the reconcile under way and ignores later notifications', async () => {
    const h = await harness();
    const a = await h.submit();
    await h.engine.stop();
    expect((await h.entry(a)).state).toBe('TESTING');
    const before = (await h.doc()).version;
    h.engine.notify(h.queueId);
    await h.settle();
    expect((await h.doc()).version).toBe(before);
    expect(ENDED).not.toContain((await h.entry(a)).state);
  });
});

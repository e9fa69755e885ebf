import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * End to end through the GitHub door: `/merge` comments, test branches built with the merges API,
 * CI results arriving as status webhooks, merges guarded by the tested head, and the status check on
 * each PR — all against the stateful fake GitHub.
 */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { concurrency: 3 });
});
afterEach(() => h.stop());

/** The head of the test branch holding exactly these PRs. */
function testBranchWith(prs: number[]): string {
  const found = h.fake.branches('mergeq/main/').find((b) => JSON.stringify(h.fake.contentOf(b)) === JSON.stringify(prs));
  if (!found) throw new Error(`no test branch holds ${prs.join(', ')}: ${h.fake.branches('mergeq/').map((b) => `${b}=${h.fake.contentOf(b)}`).join(' ')}`);
  return h.fake.refs.get(found)!;
}

function prStatus(pr: number): { state: string; description: string } | undefined {
  return h.fake.statuses.get(`head${pr}`)?.find((s) => s.context === 'mergeq (main)');
}

/** The body of the PR's one mergeq status comment, after checking it is the only one. */
function statusComment(pr: number): string {
  const comments = h.fake.statusComments(pr);
  expect(comments).toHaveLength(1);
  return comments[0]!.body;
}

test('PRs commented /merge are tested together, merged in queue order, and a bad one fails with its checks named', async () => {
  for (const n of [1, 2, 3]) h.fake.openPull(n);
  for (const n of [1, 2, 3]) await h.comment(n, '/merge');

  // Speculative runs: each PR on top of the ones ahead of it, built on the target branch head.
  const with1 = testBranchWith([1]);
  const with12 = testBranchWith([1, 2]);
  const with123 = testBranchWith([1, 2, 3]);
  expect(prStatus(1)).toMatchObject({ state: 'pending' });

  await h.ciStatus(with123, 'failure');
  await h.ciStatus(with12, 'success');
  expect(h.fake.merged).toEqual([]); // #1 is not proven yet (no optimistic merging)
  await h.ciStatus(with1, 'success');
  expect(h.fake.merged).toEqual([1, 2]);
  expect(h.fake.contentOf('main')).toEqual([1, 2]);
  expect(prStatus(1)).toMatchObject({ state: 'success' });
  expect(prStatus(2)).toMatchObject({ state: 'success' });

  // #3 failed with everything ahead of it merged: it is rerun once (flakeRetries 1), then fails.
  const rerun = testBranchWith([1, 2, 3]);
  expect(rerun).not.toBe(with123);
  await h.ciStatus(rerun, 'failure');
  const three = await h.pr(org, 3);
  expect(three).toMatchObject({ state: 'FAILED', reason: { code: 'tests_failed' } });
  expect(three.reason?.message).toContain('ci');
  expect(prStatus(3)).toMatchObject({ state: 'failure' });
  expect(h.fake.merged).toEqual([1, 2]);

  // A comment only where a person must read something: the failure, with the failing check linked.
  expect(h.fake.statusComments(1)).toEqual([]);
  expect(h.fake.statusComments(2)).toEqual([]);
  expect(statusComment(3)).toBe(
    [
      '<!-- mergeq:main -->',
      '❌ **Failed** in the merge queue of `main`: failing checks: ci.',
      '',
      'Failing checks:',
      `- [ci](https://ci.example.com/${rerun})`,
      '',
      // Its verdict (docs/verdicts.md), the author @-mentioned: a culprit is asked to act.
      '**Verdict: `culprit`** — @dev culprit: this pull request fails the required checks (failing checks: ci)',
      '',
      'Isolated by own run: its own run failed 2 times (reruns included)',
    ].join('\n'),
  );
  expect(h.fake.replies()).toEqual([]);

  // Test branches are reused, never deleted: as many as runs were in flight at once.
  await h.advanceMinutes(2);
  expect(h.fake.branches('mergeq/')).toEqual(['mergeq/main/1', 'mergeq/main/2', 'mergeq/main/3']);
  expect(h.fake.branches('mergeq-tmp/')).toEqual(['mergeq-tmp/main']); // the scratch branch, kept
});

test('new commits pushed to a queued PR cancel it (pr_updated) and the PRs behind it are retested without it', async () => {
  for (const n of [1, 2]) h.fake.openPull(n);
  for (const n of [1, 2]) await h.comment(n, '/merge');
  const with12 = testBranchWith([1, 2]);

  const pull = h.fake.openPull(1); // the same PR, new head commit
  pull.head = 'head1b';
  await h.deliver('pull_request', {
    action: 'synchronize',
    number: 1,
    pull_request: { number: 1, title: 'change 1', state: 'open', merged: false, merge_commit_sha: null, draft: false, mergeable: null, mergeable_state: 'unknown', head: { sha: 'head1b', ref: 'feature-1' }, base: { ref: 'main' }, user: { login: 'dev' } },
  });
  expect(await h.pr(org, 1)).toMatchObject({ state: 'CANCELLED', reason: { code: 'pr_updated' } });
  const alone2 = testBranchWith([2]);
  await h.ciStatus(with12, 'success'); // a result that held #1 proves nothing any more
  expect(h.fake.merged).toEqual([]);
  await h.ciStatus(alone2, 'success');
  expect(h.fake.merged).toEqual([2]);
});

test('a PR waiting for an approval joins the queue when the review webhook arrives, without waiting for a poll', async () => {
  h.fake.openPull(1).awaitsReview = true;
  await h.comment(1, '/merge');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'NOT_READY' });
  expect(h.fake.branches('mergeq/')).toEqual([]);

  h.fake.openPull(1).awaitsReview = false; // approved
  const pullInPayload = { number: 1, state: 'open', head: { sha: 'head1', ref: 'feature-1' }, base: { ref: 'main' } };
  await h.deliver('pull_request_review', { action: 'submitted', review: { state: 'approved' }, pull_request: pullInPayload });
  expect(await h.pr(org, 1)).toMatchObject({ state: 'TESTING' });
  await h.ciStatus(testBranchWith([1]), 'success');
  expect(h.fake.merged).toEqual([1]);
});

test("a PR blocked on its own required check joins the queue when that check's status arrives on its head", async () => {
  h.fake.openPull(1).awaitsReview = true; // blocked: branch protection wants its own CI first
  await h.comment(1, '/merge');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'NOT_READY' });

  h.fake.openPull(1).awaitsReview = false;
  await h.ciStatus('some-other-commit', 'success');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'NOT_READY' });
  await h.ciStatus('head1', 'success'); // the PR's own CI on its head
  expect(await h.pr(org, 1)).toMatchObject({ state: 'TESTING' });
});

test('a PR that conflicts with one ahead fails with merge_conflict: its test branch cannot be built', async () => {
  for (const n of [1, 2]) h.fake.openPull(n);
  h.fake.conflict(1, 2);
  await h.comment(1, '/merge');
  await h.comment(2, '/merge');
  const with1 = testBranchWith([1]);
  await h.ciStatus(with1, 'success');
  expect(h.fake.merged).toEqual([1]);
  const two = await h.pr(org, 2);
  expect(two).toMatchObject({ state: 'FAILED', reason: { code: 'merge_conflict' } });
  expect(two.reason?.message).toContain('#2 conflicts');
  expect(prStatus(2)).toMatchObject({ state: 'failure' });
  expect(h.fake.branches('mergeq-tmp/')).toEqual(['mergeq-tmp/main']); // the scratch branch, kept
});

test('a queue with commentsEnabled off posts no status comment; replies to commands still come', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', commentsEnabled: false });
  h.fake.openPull(1);
  await h.comment(1, '/merge');
  await h.comment(1, '/merge status');
  await h.ciStatus(testBranchWith([1]), 'success');
  expect(h.fake.merged).toEqual([1]);
  expect(prStatus(1)).toMatchObject({ state: 'success' });
  expect(h.fake.statusComments(1)).toEqual([]);
  expect(h.fake.replies()).toEqual([{ issue: 1, body: expect.stringMatching(/^\*\*TESTING\*\*/) }]);
});

test('with createPrsForTestingBranches, each test branch gets a draft PR into main, closed when the branch is deleted', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', createPrsForTestingBranches: true });
  for (const n of [1, 2]) h.fake.openPull(n);
  for (const n of [1, 2]) await h.comment(n, '/merge');
  const branches = h.fake.branches('mergeq/main/');
  expect(h.fake.createdPulls.map((p) => [p.head, p.base, p.draft, p.state, p.title])).toEqual([
    [branches[0], 'main', true, 'open', 'mergeq: testing PRs 1 on main'],
    [branches[1], 'main', true, 'open', 'mergeq: testing PRs 1, 2 on main'],
  ]);
  await h.ciStatus(testBranchWith([1, 2]), 'success');
  await h.ciStatus(testBranchWith([1]), 'success');
  expect(h.fake.merged).toEqual([1, 2]);
  await h.advanceMinutes(2);
  expect(h.fake.branches('mergeq/')).toEqual([]);
  expect(h.fake.createdPulls.map((p) => p.state)).toEqual(['closed', 'closed']);
});

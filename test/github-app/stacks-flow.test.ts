import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * Stacked pull requests end to end through the App against the fake GitHub (docs/github-app.md,
 * "Stacked pull requests"): `/merge` on a member queues it with the members below it as one unit,
 * tested once, landed as tested with every member marked merged — a plain chain by retargeting its
 * upper members and one fast-forward, a native stack by GitHub's asynchronous stack merge.
 */
let h: AppHarness;
let org: Org;
/** The heads pushed to test branches: one per CI run. */
let testPushes: string[];

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { concurrency: 3, mergeMethod: 'merge_commit' });
  testPushes = [];
  h.fake.onBranchPushed = (branch, sha) => {
    if (branch.startsWith('mergeq/')) testPushes.push(sha);
  };
});
afterEach(() => h.stop());

function prStatus(pr: number): string | undefined {
  return h.fake.statuses.get(`head${pr}`)?.find((s) => s.context === 'mergeq (main)')?.state;
}

/** CI passes on the one test branch holding exactly `prs`, then GitHub's own events are delivered. */
async function ciPasses(prs: number[]): Promise<string> {
  const tested = h.testBranchWith(prs);
  await h.ciStatus(tested, 'success');
  await h.deliverGitHubEvents();
  return tested;
}

test('a 3-member plain chain lands with one CI run: the upper members retargeted, one fast-forward to the tested commit, every member merged', async () => {
  h.fake.openChain([1, 2, 3]);
  await h.comment(3, '/merge');
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });

  const tested = await ciPasses([1, 2, 3]);
  expect(testPushes).toEqual([tested]);
  expect(h.fake.refs.get('main')).toBe(tested);
  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.mergedByPush).toEqual([1, 2, 3]);
  expect([2, 3].map((n) => h.fake.pulls.get(n)!.base)).toEqual(['main', 'main']);
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'MERGED' });
  for (const n of [1, 2, 3]) expect(prStatus(n)).toBe('success');
});

test('a 5-member native stack lands with one CI run and one stack merge: the target holds the tested content, every member merged', async () => {
  h.fake.openStack([1, 2, 3, 4, 5]);
  await h.deliverGitHubEvents();
  await h.comment(5, '/merge');
  for (const n of [1, 2, 3, 4, 5]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });

  const tested = await ciPasses([1, 2, 3, 4, 5]);
  expect(testPushes).toEqual([tested]);
  expect(h.fake.contentOf('main')).toEqual(h.fake.contentOf(tested));
  expect(h.fake.merged).toEqual([1, 2, 3, 4, 5]);
  const stackMerges = h.fake.requests.filter((r) => r.method === 'PUT' && /merge/.test(r.path));
  expect(stackMerges.map((r) => r.path)).toEqual(['/pulls/5/merge-async']);
  for (const n of [1, 2, 3, 4, 5]) expect(await h.pr(org, n)).toMatchObject({ state: 'MERGED' });
});

test("a native stack whose target requires the queue's own status lands: GitHub checks it on every member, so the queue says it passed on each before the stack merge", async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', requiredStatuses: ['ci'] });
  (h.fake.requiredContexts as string[]).push('mergeq (main)');
  h.fake.stacks.requiredStatuses = ['mergeq (main)']; // checked when the stack merge runs, no bypass
  h.fake.openStack([1, 2, 3]);
  await h.comment(3, '/merge');
  const statusesBefore = h.fake.writes.statuses;

  await ciPasses([1, 2, 3]);
  expect(h.fake.merged).toEqual([1, 2, 3]);
  const merge = h.fake.requests.findIndex((r) => r.path === '/pulls/3/merge-async');
  const passedFirst = h.fake.requests.slice(0, merge).filter((r) => r.method === 'POST' && /^\/statuses\/head[123]$/.test(r.path));
  expect(passedFirst.map((r) => r.path).slice(-3)).toEqual(['/statuses/head1', '/statuses/head2', '/statuses/head3']);
  expect(h.fake.writes.statuses - statusesBefore).toBe(6); // passed before the merge, then "Merged"
});

test('/merge on layer 2 of 4 queues layers 1 and 2 only, and lands them', async () => {
  h.fake.openChain([1, 2, 3, 4]);
  await h.comment(2, '/merge');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'TESTING' });
  expect(await h.pr(org, 2)).toMatchObject({ state: 'TESTING' });
  await expect(h.pr(org, 3)).rejects.toThrow();

  await ciPasses([1, 2]);
  expect(h.fake.merged).toEqual([1, 2]);
  expect(h.fake.pulls.get(3)).toMatchObject({ state: 'open' });
  expect(testPushes).toHaveLength(1);
});

test('an approval missing on a middle member holds the unit, naming it; dismissed while the unit tests, it takes that member and those above out, unmerged', async () => {
  h.fake.openStack([1, 2, 3]);
  h.fake.pulls.get(2)!.awaitsReview = true;
  await h.comment(3, '/merge');
  for (const n of [1, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'NOT_READY', reason: { message: expect.stringContaining('waiting for stack member #2') } });
  expect(await h.pr(org, 2)).toMatchObject({ state: 'NOT_READY' });
  expect(testPushes).toEqual([]);

  await h.approve(2);
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });
  const tested = h.testBranchWith([1, 2, 3]);
  h.fake.dismissApproval(2);
  await h.deliver('pull_request_review', { action: 'dismissed', review: { state: 'dismissed', user: { login: 'admin' } }, pull_request: h.fake.pullResource(h.fake.pulls.get(2)!), sender: { login: 'admin', type: 'User' } });
  await h.ciStatus(tested, 'success');
  expect(await h.pr(org, 2)).toMatchObject({ state: 'CANCELLED', reason: { code: 'not_mergeable', message: expect.stringContaining('approving review') } });
  expect(await h.pr(org, 3)).toMatchObject({ state: 'CANCELLED', reason: { code: 'stack_member_failed', message: expect.stringContaining('#2') } });
  expect(h.fake.merged).toEqual([]);

  await ciPasses([1]); // the bottom, tested again alone, lands by itself
  expect(h.fake.merged).toEqual([1]);
  expect(h.fake.contentOf('main')).toEqual([1]);
});

test('a push to layer 2 while the unit tests: layers 2 and up leave, and are never merged untested', async () => {
  h.fake.openChain([1, 2, 3]);
  await h.comment(3, '/merge');
  const tested = h.testBranchWith([1, 2, 3]);

  h.fake.pushToPull(2, 'head2b');
  await h.pullRequestEvent('synchronize', 2, 'dev', { repository: { ...h.fake.repository, default_branch: 'main' } });
  expect(await h.pr(org, 2)).toMatchObject({ state: 'CANCELLED', reason: { code: 'pr_updated' } });
  expect(await h.pr(org, 3)).toMatchObject({ reason: { code: 'stack_member_failed' } });

  await h.ciStatus(tested, 'success'); // a result for what no longer is
  await h.deliverGitHubEvents();
  expect(h.fake.merged).toEqual([]);

  await ciPasses([1]); // the bottom, tested again alone, lands by itself
  expect(h.fake.merged).toEqual([1]);
  expect(h.fake.contentOf('main')).toEqual([1]);
  expect(testPushes).toHaveLength(2);
});

test('a squash queue lands a chain bottom up, each member retargeted and merged as its own commit, the target holding the tested content', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', mergeMethod: 'squash' });
  h.fake.openChain([1, 2, 3]);
  await h.comment(3, '/merge');
  const tested = await ciPasses([1, 2, 3]);
  expect(testPushes).toEqual([tested]);
  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.contentOf('main')).toEqual(h.fake.contentOf(tested));
  expect(h.fake.requests.filter((r) => r.method !== 'GET' && /^\/pulls\/\d/.test(r.path)).map((r) => `${r.method} ${r.path}`)).toEqual([
    'PUT /pulls/1/merge',
    'PATCH /pulls/2',
    'PUT /pulls/2/merge',
    'PATCH /pulls/3',
    'PUT /pulls/3/merge',
  ]);
});

test("a middle member's branch deleted while the unit tests: GitHub closes it and the PR above, both leave, the bottom lands alone", async () => {
  h.fake.openChain([1, 2, 3]);
  await h.comment(3, '/merge');
  const tested = h.testBranchWith([1, 2, 3]);

  h.fake.handle('DELETE', '/repos/acme/widgets/git/refs/heads/feature-2', {}); // its author deletes it
  expect([2, 3].map((n) => h.fake.pulls.get(n)!.state)).toEqual(['closed', 'closed']);
  await h.deliverGitHubEvents();
  expect(await h.pr(org, 2)).toMatchObject({ state: 'CANCELLED', reason: { code: 'pr_closed' } });
  expect(await h.pr(org, 3)).toMatchObject({ state: 'CANCELLED' });

  await h.ciStatus(tested, 'success');
  await ciPasses([1]);
  expect(h.fake.merged).toEqual([1]);
  expect(h.fake.contentOf('main')).toEqual([1]);
});

test('a 100-member native stack, the most GitHub holds, lands with one CI run and one stack merge', async () => {
  const members = Array.from({ length: 100 }, (_, i) => i + 1);
  h.fake.openStack(members);
  await h.comment(100, '/merge');
  const tested = await ciPasses(members);
  expect(testPushes).toEqual([tested]);
  expect(h.fake.merged).toEqual(members);
  expect(h.fake.contentOf('main')).toEqual(members);
  expect(h.fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/pulls/100/merge-async']);
});

test('a culprit at layer 3 of a 5-member native stack: layers 1-2 land by one stack merge, 3 fails with its tests, 4-5 leave naming it, in 1 + ⌈log2 5⌉ runs and its rerun', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', bisectionConcurrency: 1 });
  h.fake.openStack([1, 2, 3, 4, 5]);
  await h.comment(5, '/merge');
  // CI fails every build holding #3, whatever else it holds; each build is reported once.
  const reported = new Set<string>();
  for (let round = 0; round < 10; round++) {
    const fresh = h.fake.branches('mergeq/main/').map((b) => h.fake.refs.get(b)!).filter((sha) => !reported.has(sha));
    if (fresh.length === 0) break;
    for (const sha of fresh) {
      reported.add(sha);
      await h.ciStatus(sha, h.fake.contentOf(sha).includes(3) ? 'failure' : 'success');
    }
    await h.deliverGitHubEvents();
  }
  expect(h.fake.merged).toEqual([1, 2]);
  expect(h.fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/pulls/2/merge-async']);
  expect(await h.pr(org, 3)).toMatchObject({ state: 'FAILED', reason: { code: 'tests_failed' } });
  for (const n of [4, 5]) expect(await h.pr(org, n)).toMatchObject({ state: 'FAILED', reason: { code: 'stack_member_failed', message: expect.stringContaining('#3') } });
  // Prefixes bisected one at a time (bisectionConcurrency 1), and the culprit's one rerun (flakeRetries 1).
  expect(testPushes.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(5)) + 1);
});

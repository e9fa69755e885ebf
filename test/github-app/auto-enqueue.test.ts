import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * Auto-enqueue (docs/queue-labels.md) against the stateful fake GitHub: a PR of a named author is
 * submitted once branch protection lets it merge (approved) and its own checks are green — not
 * before, not as a draft, not after a person cancelled it.
 */
let h: AppHarness;
let org: Org;

const RENOVATE = 'renovate[bot]';

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { autoEnqueue: { enabled: true, authors: ['dependabot[bot]', RENOVATE] } });
});
afterEach(() => h.stop());

/** A PR opened by `author` that branch protection blocks until it is approved. */
async function openAwaitingReview(number: number, author = RENOVATE): Promise<void> {
  h.fake.openPull(number, author).awaitsReview = true;
  await h.pullRequestEvent('opened', number, author);
}

async function inQueue(pr: number): Promise<boolean> {
  try {
    return (await h.pr(org, pr)).isCurrentlySubmittedToQueue;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return false;
    throw err;
  }
}

/** CI reports a check on a PR head: GitHub holds it, and the status webhook comes. */
async function ci(sha: string, state: 'pending' | 'success' | 'failure', context = 'ci'): Promise<void> {
  h.fake.setStatus(sha, { context, state, target_url: null, description: state });
  await h.ciStatus(sha, state, context);
}

test('a Renovate PR is enqueued once its checks are green and it is approved, not before, and merges', async () => {
  await openAwaitingReview(1);
  expect(await inQueue(1)).toBe(false);
  await ci('head1', 'pending');
  await ci('head1', 'success');
  expect(await inQueue(1)).toBe(false); // green, but not approved
  expect(h.fake.totalWrites()).toBe(0);

  await h.approve(1);
  expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true, prAuthor: RENOVATE });
  await h.ciStatus(h.testBranchWith([1]), 'success');
  expect(h.fake.merged).toEqual([1]);
});

test('approved first, it is enqueued when its last check turns green, not while one is pending or failing', async () => {
  h.fake.openPull(2, RENOVATE);
  await ci('head2', 'success', 'lint');
  expect(await inQueue(2)).toBe(false); // the required check `ci` has not reported
  await ci('head2', 'failure', 'ci');
  expect(await inQueue(2)).toBe(false);
  await ci('head2', 'pending', 'ci'); // rerun
  await ci('head2', 'success', 'lint');
  expect(await inQueue(2)).toBe(false);
  await ci('head2', 'success', 'ci');
  expect(await inQueue(2)).toBe(true);
});

test('PRs of authors not named, and drafts, are left alone', async () => {
  h.fake.openPull(3, 'dev');
  h.fake.openPull(4, RENOVATE).draft = true;
  for (const n of [3, 4]) await ci(`head${n}`, 'success');
  expect(await inQueue(3)).toBe(false);
  expect(await inQueue(4)).toBe(false);

  h.fake.pulls.get(4)!.draft = false;
  await h.pullRequestEvent('ready_for_review', 4, RENOVATE);
  expect(await inQueue(4)).toBe(true);
});

test('without authors, every PR is auto-enqueued; with autoEnqueue off, none, at no cost in GitHub reads', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', autoEnqueue: { enabled: true, authors: null } });
  h.fake.openPull(5, 'dev');
  await ci('head5', 'success');
  expect(await inQueue(5)).toBe(true);

  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', autoEnqueue: { enabled: false, authors: null } });
  h.fake.openPull(6, 'dev');
  const before = h.fake.requests.length;
  await h.pullRequestEvent('opened', 6, 'dev');
  await ci('head6', 'success');
  expect(await inQueue(6)).toBe(false);
  expect(h.fake.requests.slice(before)).toEqual([]); // GitHub is not even asked
});

test('a PR a person cancelled is not enqueued again by its checks or reviews; a /merge still submits it', async () => {
  h.fake.openPull(7, RENOVATE);
  await ci('head7', 'success');
  expect(await inQueue(7)).toBe(true);
  await h.comment(7, '/merge cancel');
  expect(await h.pr(org, 7)).toMatchObject({ state: 'CANCELLED', reason: { code: 'cancelled_by_user' } });

  await ci('head7', 'success', 'lint');
  await h.approve(7);
  expect(await inQueue(7)).toBe(false);
  await h.comment(7, '/merge');
  expect(await inQueue(7)).toBe(true);
});

test('a PR whose entry ended is not enqueued again at the same head, but is after new commits turn green', async () => {
  h.fake.openPull(8, RENOVATE);
  await ci('head8', 'success');
  expect(await inQueue(8)).toBe(true);
  await h.ciStatus(h.testBranchWith([8]), 'failure');
  await h.ciStatus(h.testBranchWith([8]), 'failure'); // its flake retry
  expect(await h.pr(org, 8)).toMatchObject({ state: 'FAILED' });

  await ci('head8', 'success', 'lint');
  expect(await inQueue(8)).toBe(false);

  h.fake.pushToPull(8, 'head8b');
  await h.pullRequestEvent('synchronize', 8, RENOVATE);
  await ci('head8b', 'success');
  expect(await h.pr(org, 8)).toMatchObject({ isCurrentlySubmittedToQueue: true, prSha: 'head8b' });
});

test('a finished check suite on the PR head enqueues it too (check runs of GitHub Actions)', async () => {
  h.fake.openPull(9, RENOVATE);
  h.fake.setStatus('head9', { context: 'ci', state: 'success', target_url: null, description: '' }); // its webhook lost
  await h.deliver('check_suite', {
    action: 'completed',
    check_suite: { head_sha: 'head9', head_branch: 'renovate/lodash', status: 'completed', conclusion: 'success', app: { name: 'GitHub Actions' }, pull_requests: [] },
  });
  expect(await inQueue(9)).toBe(true);
});

test('an auto-enqueued PR costs the GitHub writes of a PR submitted with /merge but its 👍', async () => {
  /** `tested`: what the PR's test branch holds (the target's content, then the PR). */
  const writesToMerge = async (pr: number, tested: number[], submit: () => Promise<unknown>) => {
    const before = h.fake.totalWrites();
    await submit();
    expect(await inQueue(pr)).toBe(true);
    await h.advanceMinutes(1); // the queued status is said once the state held
    await h.ciStatus(h.testBranchWith(tested), 'success');
    await h.advanceMinutes(1);
    expect(h.fake.merged).toContain(pr);
    return h.fake.totalWrites() - before;
  };
  h.fake.openPull(9, 'dev'); // the queue's first run also creates its scratch and test branches
  await writesToMerge(9, [9], () => h.comment(9, '/merge', 'maintainer'));
  h.fake.openPull(10, 'dev');
  const byComment = await writesToMerge(10, [9, 10], () => h.comment(10, '/merge', 'maintainer'));

  h.fake.openPull(11, RENOVATE);
  const auto = await writesToMerge(11, [9, 10, 11], () => ci('head11', 'success'));
  // The same, but for the 👍 that answers a /merge: an auto-enqueued PR has no comment to answer.
  expect(auto).toBe(byComment - 1);
});

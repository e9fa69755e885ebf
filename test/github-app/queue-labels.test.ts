import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * The queue's enqueue label (docs/queue-labels.md) against the stateful fake GitHub: added by a user
 * with write access it submits the PR, removed it cancels it; anyone else is refused once, in a comment.
 */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  h.fake.permissions.set('triager', 'triage');
  h.fake.permissions.set('reader', 'read');
  await h.createQueue(org, { enqueueLabel: 'merge' });
  h.fake.openPull(1);
});
afterEach(() => h.stop());

test('the label added by a user with write access submits the PR, which is tested and merges', async () => {
  await h.label(1, 'merge', 'maintainer');
  expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true, prSha: 'head1' });
  expect(h.fake.statuses.get('head1')).toEqual([expect.objectContaining({ context: 'mergeq (main)', state: 'pending' })]);
  await h.ciStatus(h.testBranchWith([1]), 'success');
  expect(h.fake.merged).toEqual([1]);
  // Acknowledged by the queued status only: no comment, no reaction.
  expect(h.fake.replies()).toEqual([]);
  expect(h.fake.reactions).toEqual([]);
});

test('the label removed by a user with write access cancels the PR', async () => {
  await h.label(1, 'merge', 'maintainer');
  await h.label(1, 'merge', 'maintainer', 'unlabeled');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'CANCELLED', reason: { code: 'cancelled_by_user' } });
  expect(h.fake.merged).toEqual([]);
  expect(h.fake.replies()).toEqual([]);
});

test('the label added by a read-only user is refused in one comment, and left on the PR', async () => {
  await h.label(1, 'merge', 'reader');
  await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  expect(h.fake.replies()).toEqual([
    { issue: 1, body: '@reader only users with write access to acme/widgets can submit a pull request to the merge queue with the `merge` label; the queue did not change.' },
  ]);
  expect(h.fake.pulls.get(1)!.labels).toEqual(['merge']);
  expect(h.fake.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
});

test('the label removed by a user without write access cancels nothing', async () => {
  await h.label(1, 'merge', 'maintainer');
  await h.label(1, 'merge', 'triager', 'unlabeled');
  expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true });
  expect(h.fake.replies()).toHaveLength(1);
  expect(h.fake.replies()[0]!.body).toContain('can cancel a pull request in the merge queue with the `merge` label');
});

test('other labels, and the label on a queue without enqueueLabel, change nothing and cost no write', async () => {
  await h.label(1, 'bug', 'maintainer');
  await h.label(1, 'MERGE', 'maintainer', 'unlabeled'); // not in the queue: nothing to cancel, nothing to say
  await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', enqueueLabel: null });
  await h.label(1, 'merge', 'maintainer');
  await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  expect(h.fake.totalWrites()).toBe(0);
});

test('label names match in any letter case, as on GitHub', async () => {
  await h.label(1, 'Merge', 'maintainer');
  expect(await h.pr(org, 1)).toMatchObject({ isCurrentlySubmittedToQueue: true });
});

test('a submission the queue refuses is said in a comment (a draining queue)', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', state: 'draining' });
  await h.label(1, 'merge', 'maintainer');
  await expect(h.pr(org, 1)).rejects.toMatchObject({ status: 404 });
  expect(h.fake.replies()).toHaveLength(1);
  expect(h.fake.replies()[0]!.body).toMatch(/draining/);
});

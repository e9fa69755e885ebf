import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * A plain chain landed one member at a time (docs/stacks.md, "A member below landed alone"): GitHub
 * keeps a merged PR's head branch, and the PRs based on it keep it as their base until someone deletes
 * it. The App retargets them onto where the merged PR landed, so each can be queued in its turn.
 */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { concurrency: 3, mergeMethod: 'merge_commit' });
});
afterEach(() => h.stop());

const retargets = () => h.fake.requests.filter((r) => r.method === 'PATCH' && /^\/pulls\/\d+$/.test(r.path)).map((r) => r.path);

/** CI passes on the test branch holding the changes `content` (main's and the PRs tested). */
async function ciPasses(content: number[]): Promise<void> {
  await h.ciStatus(h.testBranchWith(content), 'success');
  await h.deliverGitHubEvents();
}

test('a 3-member chain landed one by one: each member merged alone retargets the one above onto main, one write each, and every member lands', async () => {
  h.fake.openChain([1, 2, 3]);
  await h.comment(1, '/merge');
  await ciPasses([1]);
  expect(h.fake.merged).toEqual([1]);
  expect(h.fake.refs.has('feature-1')).toBe(true); // GitHub keeps the merged branch
  expect(h.fake.pulls.get(2)).toMatchObject({ state: 'open', base: 'main' });
  expect(h.fake.pulls.get(3)).toMatchObject({ base: 'feature-2' });
  expect(retargets()).toEqual(['/pulls/2']);

  await h.deliverGitHubEvents();
  await h.comment(2, '/merge');
  await ciPasses([1, 2]);
  await h.deliverGitHubEvents();
  await h.comment(3, '/merge');
  await ciPasses([1, 2, 3]);
  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.contentOf('main')).toEqual([1, 2, 3]);
  expect(retargets()).toEqual(['/pulls/2', '/pulls/3']);
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'MERGED' });
});

test('the bottom merged outside the queue: the member above is retargeted onto main, and /merge on it lands it', async () => {
  h.fake.openChain([1, 2]);
  expect(h.fake.handle('PUT', '/repos/acme/widgets/pulls/1/merge', { sha: 'head1' })[0]).toBe(200);
  await h.deliverGitHubEvents();
  expect(h.fake.pulls.get(2)).toMatchObject({ state: 'open', base: 'main' });

  await h.deliverGitHubEvents();
  await h.comment(2, '/merge');
  await ciPasses([1, 2]);
  expect(h.fake.merged).toEqual([1, 2]);
});

test('/merge on a member whose member below merged while the App heard nothing: retargeted first, then queued with the member above it left alone', async () => {
  h.fake.openChain([1, 2, 3, 4]);
  h.fake.handle('PUT', '/repos/acme/widgets/pulls/1/merge', { sha: 'head1' });
  h.fake.takeWebhooks(); // the merge's webhook was lost
  await h.comment(3, '/merge');
  expect(h.fake.pulls.get(2)).toMatchObject({ base: 'main' });
  expect(retargets()).toEqual(['/pulls/2']);
  for (const n of [2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });
  await expect(h.pr(org, 4)).rejects.toThrow();

  await ciPasses([1, 2, 3]);
  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.pulls.get(4)).toMatchObject({ state: 'open', base: 'main' }); // retargeted once #3 merged
});

test('the label on a chain member whose member below merged alone retargets it and queues it', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', enqueueLabel: 'merge' });
  h.fake.openChain([1, 2]);
  h.fake.handle('PUT', '/repos/acme/widgets/pulls/1/merge', { sha: 'head1' });
  h.fake.takeWebhooks();
  await h.label(2, 'merge', 'maintainer');
  expect(h.fake.pulls.get(2)).toMatchObject({ base: 'main' });
  expect(await h.pr(org, 2)).toMatchObject({ state: 'TESTING' });
});

test('another label on such a member retargets nothing', async () => {
  await h.queueService.updateQueue(org, { repo: h.repo, targetBranch: 'main', enqueueLabel: 'merge' });
  h.fake.openChain([1, 2]);
  h.fake.handle('PUT', '/repos/acme/widgets/pulls/1/merge', { sha: 'head1' });
  h.fake.takeWebhooks();
  await h.label(2, 'bug', 'maintainer');
  expect(h.fake.pulls.get(2)).toMatchObject({ base: 'feature-1' });
  expect(retargets()).toEqual([]);
});

test('a repository without a queue: a merged PR retargets nothing', async () => {
  await h.queueService.deleteQueue(org, { repo: h.repo, targetBranch: 'main' });
  h.fake.openChain([1, 2]);
  h.fake.handle('PUT', '/repos/acme/widgets/pulls/1/merge', { sha: 'head1' });
  await h.deliverGitHubEvents();
  expect(h.fake.pulls.get(2)).toMatchObject({ base: 'feature-1' });
  expect(retargets()).toEqual([]);
});

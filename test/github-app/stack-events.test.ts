import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/** The App's `pull_request` events about stacks: the other members are read again, and only for stacks. */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org);
});
afterEach(() => h.stop());

/** Reads of the stack (the Stacks API, the open PRs) and of single PRs, since `from`. */
function stackReads(from: number): string[] {
  return h.fake.requests.slice(from).filter((r) => r.method === 'GET' && /^\/(stacks|pulls)(\/\d+)?$/.test(r.path)).map((r) => r.path);
}

test('a PR joining a native stack makes the queue read the other members as they are now', async () => {
  h.fake.openChain([1, 2, 3]);
  h.fake.pulls.get(1)!.awaitsReview = true;
  await h.comment(1, '/merge');
  expect(await h.pr(org, 1)).toMatchObject({ state: 'NOT_READY' });
  h.fake.approve(1); // no review webhook comes
  h.fake.takeWebhooks();

  expect(h.fake.stacks.create([1, 2, 3])[0]).toBe(201);
  const top = h.fake.takeWebhooks().find((w) => w.payload.number === 3)!;
  expect(top.payload).toMatchObject({ action: 'stacked', stack: { position: 3, size: 3 } });
  const from = h.fake.requests.length;
  await h.deliver(top.name, top.payload);
  expect(stackReads(from)).toEqual(['/pulls/3', '/stacks/1', '/pulls/1']); // #2 is in no queue: not read

  expect(await h.pr(org, 1)).toMatchObject({ state: 'TESTING' });
});

test('a stack created while no queue holds a PR of the repository costs no read, however many members send `stacked`', async () => {
  h.fake.openStack([1, 2, 3, 4, 5]);
  const from = h.fake.requests.length;
  await h.deliverGitHubEvents();
  expect(stackReads(from)).toEqual([]);
});

test("a push to a chain member above the bottom reads the chain; a PR on the default branch outside any stack reads nothing more", async () => {
  h.fake.openChain([1, 2]);
  h.fake.openPull(5);
  await h.comment(1, '/merge');
  let from = h.fake.requests.length;
  h.fake.pushToPull(2, 'head2b');
  await h.pullRequestEvent('synchronize', 2, 'dev', { repository: { ...h.fake.repository, default_branch: 'main' } });
  expect(stackReads(from)).toEqual(['/pulls/2', '/pulls', '/pulls/1']);

  from = h.fake.requests.length;
  h.fake.pushToPull(5, 'head5b');
  await h.pullRequestEvent('synchronize', 5, 'dev', { repository: { ...h.fake.repository, default_branch: 'main' } });
  expect(stackReads(from)).toEqual([]);
});

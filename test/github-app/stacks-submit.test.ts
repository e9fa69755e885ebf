import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/** The enqueue label and auto-enqueue on a stack member queue it with the members below it, in the queue of the stack's target. */
let h: AppHarness;
let org: Org;

beforeEach(async () => {
  h = await AppHarness.start();
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
});
afterEach(() => h.stop());

test('the enqueue label on layer 3 of a native stack queues layers 1 to 3 as one unit, landed by one stack merge', async () => {
  await h.createQueue(org, { enqueueLabel: 'merge', mergeMethod: 'merge_commit' });
  h.fake.openStack([1, 2, 3, 4]);
  await h.label(3, 'merge', 'maintainer');
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });
  await expect(h.pr(org, 4)).rejects.toThrow();

  await h.ciStatus(h.testBranchWith([1, 2, 3]), 'success');
  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.requests.filter((r) => r.method === 'PUT').map((r) => r.path)).toEqual(['/pulls/3/merge-async']);
});

test('auto-enqueue submits a chain member whose checks pass with the member below it, in the queue of the chain’s target', async () => {
  const bot = 'renovate[bot]';
  await h.createQueue(org, { autoEnqueue: { enabled: true, authors: [bot] }, mergeMethod: 'merge_commit' });
  for (const pull of h.fake.openChain([1, 2])) pull.author = bot;
  h.fake.setStatus('head2', { context: 'ci', state: 'success', target_url: null, description: 'passed' });
  await h.ciStatus('head2', 'success');
  for (const n of [1, 2]) expect(await h.pr(org, n)).toMatchObject({ isCurrentlySubmittedToQueue: true });

  await h.ciStatus(h.testBranchWith([1, 2]), 'success');
  expect(h.fake.merged).toEqual([1, 2]);
  expect(h.fake.refs.get('main')).toBe(h.fake.branches('mergeq/main/').map((b) => h.fake.refs.get(b))[0]);
});

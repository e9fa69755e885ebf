import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * A plain chain queued as a unit that GitHub stacks natively before it lands (docs/stacks.md): GitHub
 * then merges its upper members only through the stack merge, so the unit lands as a native stack —
 * one `merge-async` on the top, no retargets and no fast-forward — whether the `stacked` events
 * arrive or the queue finds the stack when it reads the members before landing them.
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

const writesToPulls = () => h.fake.requests.filter((r) => r.method !== 'GET' && /^\/pulls\/\d/.test(r.path)).map((r) => `${r.method} ${r.path}`);

test.each([
  ['its `stacked` events delivered', true],
  ['its `stacked` events lost, found when the members are read before landing', false],
])('a 3-member chain stacked natively while its unit tests lands through one stack merge, %s', async (_how, delivered) => {
  h.fake.openChain([1, 2, 3]);
  await h.comment(3, '/merge');
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'TESTING' });
  const tested = h.testBranchWith([1, 2, 3]);

  expect(h.fake.handle('POST', '/repos/acme/widgets/stacks', { pull_requests: [1, 2, 3] })[0]).toBe(201);
  if (delivered) await h.deliverGitHubEvents();
  else h.fake.takeWebhooks();
  await h.ciStatus(tested, 'success');
  await h.deliverGitHubEvents();
  await h.advanceMinutes(1);

  expect(h.fake.merged).toEqual([1, 2, 3]);
  expect(h.fake.contentOf('main')).toEqual(h.fake.contentOf(tested));
  expect(writesToPulls()).toEqual(['PUT /pulls/3/merge-async']);
  for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'MERGED' });
});

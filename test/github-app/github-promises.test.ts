import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * The promises of the queue, kept on GitHub against the stateful fake: the target branch stays green
 * when someone pushes to it, nothing that was not approved merges, no webhook delivery is lost, early
 * CI results are used, and GitHub's transient errors fail no PR.
 */
let h: AppHarness;
let org: Org;

async function setUp(options: { retryDelaysMs?: number[] } = {}, settings: { concurrency?: number } = {}): Promise<void> {
  h = await AppHarness.start(options);
  org = await h.install();
  h.fake.permissions.set('maintainer', 'write');
  await h.createQueue(org, { concurrency: 3, ...settings });
}
afterEach(() => h.stop());

/** Test branches holding exactly this content (PR numbers and outside changes), newest last. */
function testBranchesWith(content: number[]): string[] {
  return h.fake.branches('mergeq/main/').filter((b) => JSON.stringify(h.fake.contentOf(b)) === JSON.stringify(content));
}

function only(content: number[]): string {
  const found = testBranchesWith(content);
  if (found.length !== 1) throw new Error(`${found.length} test branches hold ${content.join(', ')}: ${h.fake.branches('mergeq/').map((b) => `${b}=${h.fake.contentOf(b)}`).join(' ')}`);
  return h.fake.refs.get(found[0]!)!;
}

const pullPayload = (n: number, head: string) => ({
  number: n,
  title: `change ${n}`,
  state: 'open',
  merged: false,
  merge_commit_sha: null,
  draft: false,
  mergeable: null,
  mergeable_state: 'unknown',
  head: { sha: head, ref: `feature-${n}` },
  base: { ref: 'main' },
  user: { login: 'dev' },
});

describe('an outside push to the target branch', () => {
  beforeEach(() => setUp());

  test('restarts the runs built on the old head (base_moved): a change bad together with a PR in flight never reaches main', async () => {
    for (const n of [1, 2, 3]) h.fake.openPull(n);
    for (const n of [1, 2, 3]) await h.comment(n, '/merge');
    const old = { one: only([1]), two: only([1, 2]), three: only([1, 2, 3]) };

    // Someone pushes change 900 straight to main; it breaks together with #3.
    h.fake.pushOutside(900);
    await h.deliver('push', { ref: 'refs/heads/main', deleted: false, after: h.fake.refs.get('main') });

    for (const n of [1, 2, 3]) expect((await h.pr(org, n)).state).toBe('TESTING');
    expect((await h.pr(org, 1)).history?.map((t) => t.reason.code)).toContain('base_moved');
    // The old results prove nothing any more: passing them merges nothing.
    for (const sha of Object.values(old)) await h.ciStatus(sha, 'success');
    expect(h.fake.merged).toEqual([]);

    // Rebuilt on the new head; CI fails whatever holds both #3 and 900.
    await h.ciStatus(only([1, 900]), 'success');
    await h.ciStatus(only([1, 2, 900]), 'success');
    expect(h.fake.merged).toEqual([1, 2]);
    for (const sha of testBranchesWith([1, 2, 3, 900])) await h.ciStatus(h.fake.refs.get(sha)!, 'failure');
    for (const sha of testBranchesWith([1, 2, 3, 900])) await h.ciStatus(h.fake.refs.get(sha)!, 'failure'); // the flake rerun
    expect(await h.pr(org, 3)).toMatchObject({ state: 'FAILED', reason: { code: 'tests_failed' } });
    expect(h.fake.contentOf('main')).toEqual([1, 2, 900]);
  });

  test('seen only when merging (no push webhook): the head is read before each merge, and nothing merges onto a head the run did not test', async () => {
    h.fake.openPull(1);
    await h.comment(1, '/merge');
    const built = only([1]);
    h.fake.pushOutside(900); // no webhook: a lost delivery
    await h.ciStatus(built, 'success');
    expect(h.fake.merged).toEqual([]);
    expect((await h.pr(org, 1)).history?.map((t) => t.reason.code)).toContain('base_moved');
    await h.ciStatus(only([1, 900]), 'success');
    expect(h.fake.merged).toEqual([1]);
    expect(h.fake.contentOf('main')).toEqual([1, 900]);
  });
});

describe('new commits after an acknowledged /merge', () => {
  beforeEach(() => setUp());

  test('cancel a PR still waiting to be ready (pr_updated): the pushed commits do not merge', async () => {
    h.fake.openPull(1).awaitsReview = true;
    await h.comment(1, '/merge');
    expect(await h.pr(org, 1)).toMatchObject({ state: 'NOT_READY' });
    expect(h.fake.statuses.get('head1')?.at(-1)).toMatchObject({ context: 'mergeq (main)', state: 'pending' });

    h.fake.pushToPull(1, 'head1-unreviewed');
    h.fake.pulls.get(1)!.awaitsReview = false; // approved meanwhile: only the head tells it apart
    await h.deliver('pull_request', { action: 'synchronize', number: 1, pull_request: pullPayload(1, 'head1-unreviewed') });
    expect(await h.pr(org, 1)).toMatchObject({ state: 'CANCELLED', reason: { code: 'pr_updated' } });
    await h.advanceMinutes(3);
    expect(h.fake.branches('mergeq/')).toEqual([]);
    expect(h.fake.merged).toEqual([]);
  });

  test('cancel it also when only the poll sees the new head (a lost webhook)', async () => {
    h.fake.openPull(1).awaitsReview = true;
    await h.comment(1, '/merge');
    h.fake.pushToPull(1, 'head1-unreviewed');
    h.fake.pulls.get(1)!.awaitsReview = false;
    h.engine.start(); // polls every minute
    await h.advanceMinutes(2);
    expect(await h.pr(org, 1)).toMatchObject({ state: 'CANCELLED', reason: { code: 'pr_updated' } });
    expect(h.fake.merged).toEqual([]);
  });
});

describe('webhook deliveries', () => {
  beforeEach(() => setUp());

  test('a delivery whose handling failed is handled when GitHub redelivers it; the PR is told in the meantime', async () => {
    h.fake.openPull(1);
    h.fake.failNext('GET', /^\/collaborators\/maintainer\/permission$/, 502);
    await expect(h.comment(1, '/merge', 'maintainer', { delivery: 'd-1' })).rejects.toThrow();
    expect(h.fake.reactions.at(-1)?.content).toBe('confused');
    expect(h.fake.replies().at(-1)?.body).toMatch(/could not carry out this command just now \(GitHub or the queue answered 502\)/);
    await expect(h.pr(org, 1)).rejects.toThrow();

    await h.comment(1, '/merge', 'maintainer', { delivery: 'd-1' }); // the redelivery
    expect(await h.pr(org, 1)).toMatchObject({ state: 'TESTING' });
    expect(h.fake.statuses.get('head1')).toEqual([expect.objectContaining({ context: 'mergeq (main)', state: 'pending' })]);
    const writes = h.fake.totalWrites();
    await h.comment(1, '/merge', 'maintainer', { delivery: 'd-1' }); // handled: now it is a duplicate
    expect(h.fake.totalWrites()).toBe(writes);
  });

  test('CI results that arrive before the run is recorded are used at once, not at the next poll', async () => {
    h.fake.openPull(1);
    h.fake.onBranchPushed = (branch, sha) => {
      if (branch.startsWith('mergeq/main/')) void h.ciStatus(sha, 'success');
    };
    await h.comment(1, '/merge');
    await h.engine.whenIdle();
    expect(h.fake.merged).toEqual([1]);
  });
});

describe("GitHub's transient errors", () => {
  beforeEach(() => setUp({ retryDelaysMs: [0, 0, 0] }));

  test('502s and 429s on merges and ref creation fail no PR', async () => {
    for (const n of [1, 2]) h.fake.openPull(n);
    h.fake.failNext('POST', /^\/git\/refs$/, 502, 2);
    h.fake.failNext('POST', /^\/merges$/, 429);
    for (const n of [1, 2]) await h.comment(n, '/merge');
    const two = only([1, 2]);
    await h.ciStatus(two, 'success');
    h.fake.failNext('PUT', /^\/pulls\/\d+\/merge$/, 502);
    h.fake.failNext('PUT', /^\/pulls\/\d+\/merge$/, 429);
    await h.ciStatus(only([1]), 'success');
    expect(h.fake.merged).toEqual([1, 2]);
    for (const n of [1, 2]) expect((await h.pr(org, n)).state).toBe('MERGED');
  });
});

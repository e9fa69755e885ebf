import type { Org } from '../../src/domain/org.js';
import { AppHarness } from './app-harness.js';

/**
 * The GitHub App's writes (github.md, "Merging" and "Write budget"), against the stateful fake GitHub:
 * a passed run merges by fast-forwarding the target to the tested commit, each PR is checked again
 * before it merges, and every write goes through the installation's budget, within GitHub's limits.
 */

let h: AppHarness;
let org: Org;

afterEach(() => h.stop());

async function start(options: Parameters<typeof AppHarness.start>[0] = {}): Promise<void> {
  h = await AppHarness.start(options);
  h.fake.now = () => h.time.nowMillis();
  h.fake.permissions.set('maintainer', 'write');
  org = await h.install();
}

/** The test branch head holding exactly these PRs (on top of main as it stands). */
function testBranchWith(prs: number[]): string {
  const branch = h.fake.branches('mergeq/').find((b) => h.fake.contentOf(b).join() === [...h.fake.contentOf('main'), ...prs].sort((a, b) => a - b).join());
  if (!branch) throw new Error(`no test branch holds ${prs.join(', ')}`);
  return h.fake.refs.get(branch)!;
}

function requests(method: string, path: RegExp): { at: number }[] {
  return h.fake.requests.filter((r) => r.method === method && path.test(r.path));
}

describe('merging by fast-forward', () => {
  beforeEach(() => start());

  test('passed runs are merged by one fast-forward: main is the tested commit and every PR of it is merged', async () => {
    await h.createQueue(org, { concurrency: 3, mergeMethod: 'merge_commit' });
    for (const n of [1, 2, 3]) h.fake.openPull(n);
    for (const n of [1, 2, 3]) await h.comment(n, '/merge');
    const [with1, with12, with123] = [testBranchWith([1]), testBranchWith([1, 2]), testBranchWith([1, 2, 3])];

    await h.ciStatus(with123, 'success');
    await h.ciStatus(with12, 'success');
    expect(h.fake.merged).toEqual([]); // #1 is not proven yet
    await h.ciStatus(with1, 'success');

    expect(h.fake.refs.get('main')).toBe(with123);
    expect(h.fake.mergedByPush).toEqual([1, 2, 3]);
    expect(requests('PATCH', /^\/git\/refs\/heads\/main$/)).toHaveLength(1);
    expect(requests('PUT', /^\/pulls\/\d+\/merge$/)).toEqual([]);
    for (const n of [1, 2, 3]) expect(await h.pr(org, n)).toMatchObject({ state: 'MERGED', reason: { code: 'merged' } });
    // The merge commits main now holds read like GitHub's own.
    const merge3 = h.fake.handle('GET', `/repos/acme/widgets/git/commits/${with123}`, {})[1] as { message: string };
    expect(merge3.message).toBe('Merge pull request #3 from dev/feature-3\n\nchange 3\n\nmergeq-base: base0');
  });

  test('branch protection refusing the fast-forward: merged through the merge API, and the queue says so', async () => {
    h.fake.protectedBranches.add('main');
    await h.createQueue(org, { mergeMethod: 'merge_commit' });
    h.fake.openPull(1);
    await h.comment(1, '/merge');
    await h.ciStatus(testBranchWith([1]), 'success');

    expect(h.fake.merged).toEqual([1]);
    expect(h.fake.mergedByPush).toEqual([]);
    expect(requests('PUT', /^\/pulls\/1\/merge$/)).toHaveLength(1);
    const queue = await h.queueService.getQueue(org, { repo: h.repo, targetBranch: 'main' });
    expect(queue).toMatchObject({ mergePath: 'merge_api', fastForwardRefused: { message: expect.stringMatching(/Protected branch update failed/) } });

    // Said once: the next PR merges through the merge API without trying the fast-forward again.
    h.fake.openPull(2);
    await h.comment(2, '/merge');
    await h.ciStatus(testBranchWith([2]), 'success');
    expect(h.fake.merged).toEqual([1, 2]);
    expect(requests('PATCH', /^\/git\/refs\/heads\/main$/)).toHaveLength(1);
  });

  test('the target moved between the test and the fast-forward: nothing merges, base_moved, retested on the new head', async () => {
    await h.createQueue(org, { mergeMethod: 'merge_commit' });
    h.fake.openPull(1);
    await h.comment(1, '/merge');
    const tested = testBranchWith([1]);
    let pushed = false;
    h.fake.onRequest = (method, path) => {
      // Someone pushes to main just before the queue's merge reaches GitHub.
      if (!pushed && (path === '/git/refs/heads/main' || path === '/pulls/1/merge') && method !== 'GET') {
        pushed = true;
        h.fake.pushOutside(99);
      }
    };
    await h.ciStatus(tested, 'success');

    expect(pushed).toBe(true);
    expect(h.fake.merged).toEqual([]);
    expect(h.fake.contentOf('main')).toEqual([99]);
    const pr = await h.pr(org, 1);
    expect(pr.history.map((t) => t.reason.code)).toContain('base_moved');
    expect(pr.state).toBe('TESTING');
    const retested = testBranchWith([1]);
    expect(h.fake.contentOf(retested)).toEqual([1, 99]);
    await h.ciStatus(retested, 'success');
    expect(h.fake.merged).toEqual([1]);
    expect(h.fake.refs.get('main')).toBe(retested);
  });

  test('a fast-forward whose answer is lost is found done: every PR of it merged once, nothing rebuilt', async () => {
    await h.createQueue(org, { concurrency: 2, mergeMethod: 'merge_commit' });
    for (const n of [1, 2]) h.fake.openPull(n);
    for (const n of [1, 2]) await h.comment(n, '/merge');
    h.fake.failAfter('PATCH', /^\/git\/refs\/heads\/main$/, 502);
    const with12 = testBranchWith([1, 2]);
    await h.ciStatus(with12, 'success');
    await h.ciStatus(testBranchWith([1]), 'success');

    expect(h.fake.refs.get('main')).toBe(with12);
    expect(h.fake.merged).toEqual([1, 2]);
    for (const n of [1, 2]) {
      const pr = await h.pr(org, n);
      expect(pr.state).toBe('MERGED');
      expect(pr.history.map((t) => t.reason.code)).not.toContain('base_moved');
    }
    expect(requests('PATCH', /^\/git\/refs\/heads\/main$/)).toHaveLength(1);
  });

  test('an approval dismissed while the PR is in a run: it leaves the queue (not_mergeable), unmerged, and the PR behind merges without it', async () => {
    await h.createQueue(org, { concurrency: 2, mergeMethod: 'merge_commit' });
    for (const n of [1, 2]) h.fake.openPull(n);
    h.fake.approve(1);
    for (const n of [1, 2]) await h.comment(n, '/merge');
    h.fake.dismissApproval(1); // no webhook arrives for it

    await h.ciStatus(testBranchWith([1]), 'success');
    await h.ciStatus(testBranchWith([1, 2]), 'success');
    expect(await h.pr(org, 1)).toMatchObject({
      state: 'CANCELLED',
      reason: { code: 'not_mergeable', message: 'not allowed to merge: its approval was dismissed and an approving review is required' },
    });
    expect(h.fake.merged).toEqual([]);

    await h.ciStatus(testBranchWith([2]), 'success');
    expect(h.fake.merged).toEqual([2]);
    expect(h.fake.contentOf('main')).toEqual([2]);
  });
});

describe('the write budget', () => {
  test('with a budget of 20 writes a minute, 30 PRs merge with every minute within it and nothing refused; reports give way to merges', async () => {
    await start({ writeBudget: { perMinute: 20, perHour: 10_000 } });
    const limits = h.fake.limitWrites(20, 10_000, () => h.time.nowMillis());
    await h.createQueue(org, { concurrency: 4, mergeMethod: 'merge_commit', statusCheckEnabled: false });
    // CI passes each test branch 30 s after it is pushed.
    const passedAt: number[] = [];
    h.fake.onBranchPushed = (branch, sha) => {
      if (!branch.startsWith('mergeq/')) return;
      h.time.schedule(30_000, () => {
        passedAt.push(h.time.nowMillis());
        // Kept on the commit too, as GitHub does: the engine's poll finds it if the webhook is slow.
        h.fake.setStatus(sha, { context: 'ci', state: 'success', target_url: null, description: 'passed' });
        void h.ciStatus(sha, 'success');
      });
    };
    for (let n = 1; n <= 30; n++) h.fake.openPull(n);
    for (let n = 1; n <= 30; n++) await h.comment(n, '/merge');
    for (let minute = 0; minute < 120 && h.fake.merged.length < 30; minute++) await h.advanceMinutes(1);

    expect(h.fake.merged).toHaveLength(30);
    for (let n = 1; n <= 30; n++) expect((await h.pr(org, n)).state).toBe('MERGED');
    expect(limits.refused).toBe(0);
    expect(limits.peakPerMinute).toBeLessThanOrEqual(20);
    // 30 👍 were asked for at once, yet each fast-forward went out within seconds of the CI result
    // it waited for (behind at most the builds of one reconcile), never behind the queue of reactions.
    expect(h.fake.reactions).toHaveLength(30);
    const fastForwards = requests('PATCH', /^\/git\/refs\/heads\/main$/);
    expect(fastForwards.length).toBeGreaterThan(0);
    for (const { at } of fastForwards) expect(at - Math.max(...passedAt.filter((t) => t <= at))).toBeLessThanOrEqual(30_000);
  }, 120_000);

  test('a 403 secondary-limit answer with retry-after 150 s fails no PR, and the write is not sent again before then', async () => {
    await start({ writeBudget: { perMinute: 80, perHour: 500 } });
    await h.createQueue(org, { mergeMethod: 'merge_commit' });
    h.fake.openPull(1);
    await h.comment(1, '/merge');
    await h.advanceMinutes(1);
    h.fake.failNext('PATCH', /^\/git\/refs\/heads\/main$/, 403, 1, 150);
    await h.ciStatus(testBranchWith([1]), 'success');
    await h.advanceMinutes(4);

    expect(await h.pr(org, 1)).toMatchObject({ state: 'MERGED' });
    const tries = requests('PATCH', /^\/git\/refs\/heads\/main$/);
    expect(tries).toHaveLength(2);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(150_000);
    const metrics = await h.writeMetrics.render(await h.store.queues.listQueues({}));
    expect(metrics).toMatch(/^mergeq_github_write_refusals_total\{installation="7"\} 1$/m);
  });
});

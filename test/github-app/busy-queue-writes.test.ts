import type { Org } from '../../src/domain/org.js';
import { QUEUED_STATUS_AFTER_MS, REPORT_DEBOUNCE_MS } from '../../src/engine/report-timing.js';
import { AppHarness } from './app-harness.js';

/**
 * What a busy queue writes on GitHub per merged PR (github.md, "What each write buys"), reporting as
 * `mergeq serve` does: a `/merge` is answered by a 👍; a PR whose run starts at once and merges within
 * a minute gets no status at all; one still in the queue after a minute is told where it stands, and
 * then how it ended.
 */

let h: AppHarness;
let org: Org;

afterEach(() => h.stop());

beforeEach(async () => {
  h = await AppHarness.start({ reports: { debounceMs: REPORT_DEBOUNCE_MS, queuedStatusAfterMs: QUEUED_STATUS_AFTER_MS } });
  h.fake.now = () => h.time.nowMillis();
  h.fake.permissions.set('maintainer', 'write');
  org = await h.install();
});

/** CI passes each test branch `ms` after it is pushed (the status kept on the commit, and its webhook). */
function ciPassesAfter(ms: (branch: string) => number): void {
  h.fake.onBranchPushed = (branch, sha) => {
    if (!branch.startsWith('mergeq/')) return;
    h.time.schedule(ms(branch), () => {
      h.fake.setStatus(sha, { context: 'ci', state: 'success', target_url: null, description: 'passed' });
      void h.ciStatus(sha, 'success');
    });
  };
}

function mergeqStatuses(n: number) {
  return (h.fake.statuses.get(`head${n}`) ?? []).filter((s) => s.context === 'mergeq (main)');
}

test('a /merge every 3 s into batches of 4: each PR hears a 👍 and merges, no status, at most 3 writes per merged PR', async () => {
  await h.createQueue(org, { concurrency: 4, mergeMethod: 'merge_commit', batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 });
  ciPassesAfter(() => 1_000);
  for (let n = 1; n <= 12; n++) h.fake.openPull(n);
  const comments: number[] = [];
  for (let n = 1; n <= 12; n++) {
    comments.push(await h.comment(n, '/merge'));
    await h.advance(3_000);
  }
  for (let i = 0; i < 10 && h.fake.merged.length < 12; i++) await h.advanceMinutes(1);

  expect([...h.fake.merged].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  expect(h.fake.reactions).toEqual(comments.map((commentId) => ({ commentId, content: '+1' })));
  for (let n = 1; n <= 12; n++) expect(mergeqStatuses(n)).toEqual([]);
  expect(h.fake.writes.statuses).toBe(0);
  expect(h.fake.totalWrites() / 12).toBeLessThanOrEqual(3);
});

test('a PR still in the queue a minute after its /merge is told where it stands, and then how it ended', async () => {
  await h.createQueue(org, { mergeMethod: 'merge_commit' });
  ciPassesAfter(() => 5 * 60_000);
  h.fake.openPull(1);
  await h.comment(1, '/merge');
  await h.advance(50_000);
  expect(mergeqStatuses(1)).toEqual([]);
  await h.advance(15_000);
  expect(mergeqStatuses(1)).toEqual([expect.objectContaining({ state: 'pending', description: 'Testing' })]);

  await h.advanceMinutes(5);
  expect(h.fake.merged).toEqual([1]);
  expect(mergeqStatuses(1)).toEqual([expect.objectContaining({ state: 'success', description: 'Merged' })]);
  expect(h.fake.writes.statuses).toBe(2);
});

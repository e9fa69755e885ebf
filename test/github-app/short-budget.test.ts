import type { Org } from '../../src/domain/org.js';
import { QUEUED_STATUS_AFTER_MS, REPORT_DEBOUNCE_MS } from '../../src/engine/report-timing.js';
import { AppHarness } from './app-harness.js';

/**
 * GitHub's limits scaled down (20 writes a minute, 150 in any ten minutes), known to the App's write
 * budget: no write is refused, and every `/merge` is answered within a minute, however long the
 * queue's own writes wait (github.md, "Write budget").
 */

const LIMITS = { perMinute: 20, perHour: 150, hourMs: 10 * 60_000 };
const PRS = 40;

let h: AppHarness;
let org: Org;

afterEach(() => h.stop());

test(`${PRS} PRs into a squash queue, a /merge every 3 s: none refused, each /merge hears its 👍 within 60 s, every PR merges`, async () => {
  h = await AppHarness.start({ writeBudget: LIMITS, reports: { debounceMs: REPORT_DEBOUNCE_MS, queuedStatusAfterMs: QUEUED_STATUS_AFTER_MS } });
  h.fake.now = () => h.time.nowMillis();
  h.fake.permissions.set('maintainer', 'write');
  org = await h.install();
  const limits = h.fake.limitWrites(LIMITS.perMinute, LIMITS.perHour, () => h.time.nowMillis(), LIMITS.hourMs);
  await h.createQueue(org, { concurrency: 4, mergeMethod: 'squash' });
  h.fake.onBranchPushed = (branch, sha) => {
    if (!branch.startsWith('mergeq/')) return;
    h.time.schedule(1_000, () => {
      h.fake.setStatus(sha, { context: 'ci', state: 'success', target_url: null, description: 'passed' });
      void h.ciStatus(sha, 'success');
    });
  };
  for (let n = 1; n <= PRS; n++) h.fake.openPull(n);
  const asked: { commentId: number; at: number }[] = [];
  for (let n = 1; n <= PRS; n++) {
    asked.push({ commentId: await h.comment(n, '/merge'), at: h.time.nowMillis() });
    await h.advance(3_000);
  }
  for (let minute = 0; minute < 60 && h.fake.merged.length < PRS; minute++) await h.advanceMinutes(1);

  expect(h.fake.merged).toHaveLength(PRS);
  expect(limits.refused).toBe(0);
  const answeredAfter = asked.map(({ commentId, at }) => {
    const reaction = h.fake.requests.find((r) => r.method === 'POST' && r.path === `/issues/comments/${commentId}/reactions`);
    return reaction ? reaction.at - at : Infinity;
  });
  expect(Math.max(...answeredAfter)).toBeLessThanOrEqual(60_000);
}, 60_000);

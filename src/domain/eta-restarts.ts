import type { TestRun } from './run.js';

/**
 * Single mode: the chance that one PR a run is built on fails and restarts it, as the recent runs
 * tell it — the chance under which their restarts were likeliest, a run built on n PRs ahead being
 * rebuilt with chance 1 − (1 − p)^n (maximum likelihood). Null when no recent run was built on a PR.
 *
 * The failed first runs tell it badly here: most runs end neither passed nor failed, but cancelled —
 * rebuilt after a failure ahead, or merged by a run behind that passed first — so the ones that end
 * are mostly those that failed, and spread over the PRs they held they still give too small a chance
 * (s20, seed 1: 7% a PR, where a run was restarted as if each PR ahead failed at 10%).
 *
 * `since` (ISO time): the runs that ended from then on count (those of the same span as the run times).
 */
export function restartChancePerPr(runs: readonly TestRun[], since: string): number | null {
  // ISO times, compared as strings (their order is the times' order): this runs at every estimate.
  const lastStart = new Map<string, string>();
  for (const r of runs) {
    const seen = lastStart.get(r.unitId);
    if (r.kind === 'main' && (seen === undefined || r.createdAt > seen)) lastStart.set(r.unitId, r.createdAt);
  }
  /** Runs restarted, by the number of PRs ahead they were built on. */
  const restarted = new Map<number, number>();
  let runsSeen = 0;
  let keptPrs = 0;
  for (const r of runs) {
    const n = r.dependencyEntryIds.length;
    if (r.kind !== 'main' || r.attempt !== 0 || n === 0 || !r.finishedAt || r.finishedAt < since) continue;
    runsSeen++;
    if (r.status === 'cancelled' && lastStart.get(r.unitId)! > r.createdAt) restarted.set(n, (restarted.get(n) ?? 0) + 1);
    else keptPrs += n;
  }
  if (runsSeen === 0) return null;
  if (restarted.size === 0) return 0;
  // The log-likelihood's slope in p falls from +∞ to −∞ (or stays positive: every run restarted).
  const slope = (p: number) => {
    let sum = -keptPrs / (1 - p);
    for (const [n, count] of restarted) sum += (count * n * (1 - p) ** (n - 1)) / (1 - (1 - p) ** n);
    return sum;
  };
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (slope(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

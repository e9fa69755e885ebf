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
 * `since`: the runs that ended from then on count (those of the same span as the run times).
 */
export function restartChancePerPr(runs: readonly TestRun[], since: number): number | null {
  const lastStart = new Map<string, number>();
  for (const r of runs) if (r.kind === 'main') lastStart.set(r.unitId, Math.max(lastStart.get(r.unitId) ?? 0, Date.parse(r.createdAt)));
  const restarted: number[] = [];
  const kept: number[] = [];
  for (const r of runs) {
    const n = r.dependencyEntryIds.length;
    if (r.kind !== 'main' || r.attempt !== 0 || n === 0 || !r.finishedAt || Date.parse(r.finishedAt) < since) continue;
    if (r.status === 'cancelled' && lastStart.get(r.unitId)! > Date.parse(r.createdAt)) restarted.push(n);
    else kept.push(n);
  }
  if (restarted.length + kept.length === 0) return null;
  if (restarted.length === 0) return 0;
  const keptPrs = kept.reduce((sum, n) => sum + n, 0);
  // The log-likelihood's slope in p falls from +∞ to −∞ (or stays positive: every run restarted).
  const slope = (p: number) => restarted.reduce((sum, n) => sum + (n * (1 - p) ** (n - 1)) / (1 - (1 - p) ** n), 0) - keptPrs / (1 - p);
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (slope(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

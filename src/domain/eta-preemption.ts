import type { TestRun } from './run.js';

/**
 * How often a run in flight is restarted because a PR was placed ahead of it, per millisecond of
 * main runs: an `ALL` PR going ahead of every run in flight (parallel mode), an urgent PR, a PR
 * placed ahead once ready. Nothing in the queue tells these before they happen, so the range draws
 * them at this recent rate (`mergeRanges`). A restart counts when a unit's cancelled run is followed
 * by one built on a PR that none of its earlier runs held: a rebuild without a failed PR, or with a
 * suspect readmitted, is not one (the range draws failures ahead by themselves).
 *
 * Such restarts come in bursts (one `ALL` PR restarts every run in flight), so every run given counts,
 * not only the last few dozen the run times are taken from.
 */
export function preemptionsPerMs(runs: readonly TestRun[]): number {
  const byUnit = new Map<string, TestRun[]>();
  let exposedMs = 0;
  for (const r of runs) {
    if (r.kind !== 'main') continue;
    const ofUnit = byUnit.get(r.unitId);
    if (ofUnit) ofUnit.push(r);
    else byUnit.set(r.unitId, [r]);
    if (r.finishedAt && r.status !== 'creating' && r.status !== 'pending') exposedMs += Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.createdAt));
  }
  if (exposedMs === 0) return 0;
  let restarts = 0;
  for (const ofUnit of byUnit.values()) {
    if (ofUnit.length < 2) continue;
    ofUnit.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    const held = new Set<string>();
    ofUnit.forEach((run, i) => {
      for (const p of run.prs) held.add(p.entryId);
      const next = ofUnit[i + 1];
      if (run.status === 'cancelled' && next && next.dependencyEntryIds.some((id) => !held.has(id))) restarts++;
    });
  }
  return restarts / exposedMs;
}

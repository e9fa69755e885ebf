import type { TestRun } from './run.js';

/**
 * The run times the estimate draws from, shortest first, one per finished run of `finished`, as
 * the Kaplan–Meier estimate over those runs and the runs cancelled while they ran: a cancelled run
 * only tells that it would have lasted longer than it ran. Leaving those out would bias the times
 * short — the longer a run, the likelier something cancels it before it ends (a failure ahead, a PR
 * placed ahead) — and with it the far end of every range. Only runs cancelled to be built again
 * count: what made them stop had nothing to do with their own length. What the estimate leaves
 * beyond the longest run seen (a cancelled one: it lasted at least that long) is put on that run.
 */
export function runDurations(finished: readonly TestRun[], runs: readonly TestRun[]): number[] {
  const lengthOf = (r: TestRun) => Math.max(0, Date.parse(r.finishedAt!) - Date.parse(r.createdAt));
  const ended = finished.map(lengthOf);
  if (ended.length === 0) return [];
  const since = Math.min(...finished.map((r) => Date.parse(r.finishedAt!)));
  // Only runs cancelled to be built again: a run cancelled because a run behind it merged its PRs
  // was cancelled for being long, and would bias the times the other way.
  const lastStart = new Map<string, number>();
  for (const r of runs) lastStart.set(r.unitId, Math.max(lastStart.get(r.unitId) ?? 0, Date.parse(r.createdAt)));
  const rebuilt = (r: TestRun) => lastStart.get(r.unitId)! > Date.parse(r.createdAt);
  const cancelled = runs.filter((r) => r.status === 'cancelled' && r.finishedAt && Date.parse(r.finishedAt) >= since && rebuilt(r)).map(lengthOf);
  // Kaplan–Meier: at each length a run ended, the share of the runs still going that ended then.
  const observations = [...ended.map((ms) => ({ ms, ended: true })), ...cancelled.map((ms) => ({ ms, ended: false }))].sort(
    (a, b) => a.ms - b.ms || Number(b.ended) - Number(a.ended),
  );
  const atoms: { ms: number; mass: number }[] = [];
  let survival = 1;
  let atRisk = observations.length;
  for (let i = 0; i < observations.length; ) {
    const ms = observations[i]!.ms;
    let endedHere = 0;
    let here = 0;
    for (; i < observations.length && observations[i]!.ms === ms; i++, here++) if (observations[i]!.ended) endedHere++;
    if (endedHere > 0) {
      const next = survival * (1 - endedHere / atRisk);
      atoms.push({ ms, mass: survival - next });
      survival = next;
    }
    atRisk -= here;
  }
  if (survival > 0) atoms.push({ ms: observations[observations.length - 1]!.ms, mass: survival });
  // As many equally likely times as runs finished: the quantiles of the estimate at their midpoints.
  const out: number[] = [];
  let atom = 0;
  let below = atoms[0]!.mass;
  for (let k = 0; k < ended.length; k++) {
    const q = (k + 0.5) / ended.length;
    while (below < q && atom < atoms.length - 1) below += atoms[++atom]!.mass;
    out.push(atoms[atom]!.ms);
  }
  return out;
}

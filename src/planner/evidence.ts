import type { TestRun } from '../domain/run.js';
import type { Unit } from '../domain/queue.js';
import type { Draft } from './draft.js';
import { isLiveOrPassed } from './run-status.js';
import { SuspectExclusion, failureIsConfirmed } from './suspicion.js';
import { isRemoved, isSuspect } from './units.js';

/**
 * Flake evidence (rule 4): the results of the first `pendingFailureDepth` units behind a suspect that
 * still contain it are kept — until its failure is confirmed (then they would fail too). If one passes, the suspect's failure was a flake (with
 * `canOptimisticallyMerge` it merges through that result).
 */
export function isEvidence(d: Draft, run: TestRun): boolean {
  if (!isLiveOrPassed(run) || (d.settings.mode !== 'parallel' && d.settings.pendingFailureDepth <= 0)) return false;
  const index = d.unitIndex();
  const at = index.get(run.unitId);
  if (at === undefined) return false;
  let holdsSuspect = false;
  for (const p of run.prs) {
    const e = d.entry(p.entryId);
    if (isRemoved(e)) return false;
    const unit = d.unitOfEntry(p.entryId);
    if (!unit || unit.id === run.unitId || !isSuspect(d, unit)) continue;
    const suspectAt = index.get(unit.id)!;
    if (inReach(d, unit, suspectAt, at) && !failureIsConfirmed(d, unit)) holdsSuspect = true;
  }
  return holdsSuspect;
}

/** The evidence results held for `suspect`. */
export function evidenceFor(d: Draft, suspect: Unit): TestRun[] {
  const first = suspect.entryIds[0];
  if (first === undefined) return [];
  const out: TestRun[] = [];
  const index = d.unitIndex();
  const at = index.get(suspect.id)!;
  for (const run of d.runs.values()) {
    if (run.unitId === suspect.id || !isLiveOrPassed(run)) continue;
    const runAt = index.get(run.unitId);
    if (runAt === undefined || !inReach(d, suspect, at, runAt)) continue;
    if (!run.prs.some((p) => p.entryId === first)) continue;
    if (run.prs.some((p) => isRemoved(d.entry(p.entryId)))) continue;
    out.push(run);
  }
  return out;
}

/**
 * Whether the run of the unit at `runAt` can be evidence for the suspect at `suspectAt`: one of the
 * first `pendingFailureDepth` units behind it — in parallel mode any unit of its lane, as long as the
 * lane keeps the suspect (SuspectExclusion).
 */
function inReach(d: Draft, suspect: Unit, suspectAt: number, runAt: number): boolean {
  if (runAt <= suspectAt) return false;
  if (d.settings.mode === 'parallel') return !new SuspectExclusion(d).excludes(suspect, suspectAt, runAt);
  return runAt - suspectAt <= d.settings.pendingFailureDepth;
}

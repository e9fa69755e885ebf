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
  const depth = evidenceDepth(d);
  if (depth <= 0 || !isLiveOrPassed(run)) return false;
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
    if (at > suspectAt && at - suspectAt <= depth && !failureIsConfirmed(d, unit) && keptInLane(d, unit)) holdsSuspect = true;
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
  const depth = evidenceDepth(d);
  for (const run of d.runs.values()) {
    if (run.unitId === suspect.id || !isLiveOrPassed(run)) continue;
    const runAt = index.get(run.unitId);
    if (runAt === undefined || runAt <= at || runAt - at > depth) continue;
    if (!run.prs.some((p) => p.entryId === first) || !keptInLane(d, suspect)) continue;
    if (run.prs.some((p) => isRemoved(d.entry(p.entryId)))) continue;
    out.push(run);
  }
  return out;
}

/** In parallel mode every unit of its lane behind an unconfirmed suspect keeps it (see SuspectExclusion). */
function evidenceDepth(d: Draft): number {
  return d.settings.mode === 'parallel' ? Infinity : d.settings.pendingFailureDepth;
}

/** Parallel mode keeps no evidence for a suspect its lane left out at once (SuspectExclusion). */
function keptInLane(d: Draft, suspect: Unit): boolean {
  return d.settings.mode !== 'parallel' || !new SuspectExclusion(d).excludes(suspect, 0, 0);
}

import type { Unit } from '../domain/queue.js';
import type { Reason } from '../domain/reasons.js';
import type { TestRun } from '../domain/run.js';
import type { Draft, Sink } from './draft.js';
import { containsEntry, isLiveOrPassed } from './run-status.js';

/**
 * Dropping results that no longer say anything about what would land: the runs are cancelled (a
 * passed one too: it may not be used to merge any more) and the units they were deciding go back
 * to PENDING at their own position, to be retested.
 */

export function isLanding(d: Draft, unit: Unit): boolean {
  return unit.entryIds.every((id) => d.entry(id)?.mergeIntent);
}

/** Puts the unit's entries back to PENDING (a restart: the position does not change). */
export function restartUnit(s: Sink, unit: Unit, why: Reason): void {
  for (const e of s.d.unitEntries(unit)) {
    if (e.state === 'TESTING' || e.state === 'TESTS_PASSED' || e.state === 'PENDING_FAILURE') {
      s.emit({
        type: 'transition',
        entryId: e.id,
        to: 'PENDING',
        reason: why,
        set: { testRunId: null, mergeIntent: null, retriesUsed: 0 },
      });
    }
  }
}

/** Cancels a run and restarts the units it was deciding. */
export function dropRun(s: Sink, run: TestRun, why: Reason): void {
  const decided = unitsDecidedBy(s.d, run);
  s.emit({ type: 'cancelRun', runId: run.id, reason: why.message });
  for (const unit of decided) restartUnit(s, unit, why);
}

/** Units whose entries are decided by `run` (their deciding run or their merge proof). */
export function unitsDecidedBy(d: Draft, run: TestRun): Unit[] {
  const out: Unit[] = [];
  const seen = new Set<string>();
  for (const p of run.prs) {
    const unit = d.unitOfEntry(p.entryId);
    if (!unit || seen.has(unit.id)) continue;
    const decided = d.unitEntries(unit).some((e) => e.testRunId === run.id || e.mergeIntent?.runId === run.id);
    if (decided) {
      seen.add(unit.id);
      out.push(unit);
    }
  }
  const own = d.units.find((u) => u.id === run.unitId);
  if (own && !seen.has(own.id) && d.unitEntries(own).some((e) => e.testRunId === run.id)) out.push(own);
  return out;
}

/** Every result holding `entryId` (removed from the queue) is dropped. */
export function dropResultsWith(s: Sink, entryId: string, why: Reason): void {
  for (const run of [...s.d.runs.values()]) {
    if (isLiveOrPassed(run) && containsEntry(run, entryId)) dropRun(s, run, why);
  }
}

/**
 * `entryIds` landed on the target branch outside these results: every result that did not test them
 * is dropped, merge decisions included.
 */
export function dropResultsWithout(s: Sink, entryIds: readonly string[], why: Reason): void {
  for (const run of [...s.d.runs.values()]) {
    if (!isLiveOrPassed(run)) continue;
    if (entryIds.every((id) => containsEntry(run, id))) continue;
    dropRun(s, run, why);
  }
}

import { describeHold, holdEndsAt, mergeHold, passesHold, type MergeHold } from '../../domain/merge-hold.js';
import type { Unit } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import type { Draft, Sink } from '../draft.js';

/**
 * Merge windows and freezes (docs/queue-rules.md, "Merge windows and freezes"): while the queue is
 * held, passed units wait unmerged (and, with `holdMode: start`, no run starts), except units whose
 * every PR passes the hold.
 */

/** A freeze whose `endsAt` has passed is lifted, so that the document (and `queue.unfrozen`) says so. */
export function liftEndedFreeze(s: Sink): void {
  const f = s.d.freeze;
  if (f && f.endsAt !== null && Date.parse(f.endsAt) <= s.d.now.getTime()) s.emit({ type: 'endFreeze' });
}

export function holdOf(d: Draft): MergeHold | null {
  return mergeHold(d, d.now);
}

/** The hold on starting runs: only with `holdMode: start`. */
export function startHoldOf(d: Draft): MergeHold | null {
  return d.settings.holdMode === 'start' ? holdOf(d) : null;
}

export function unitPasses(d: Draft, unit: Unit, hold: MergeHold): boolean {
  return d.unitEntries(unit).every((e) => passesHold(hold, e));
}

/** A passed unit the hold keeps says why on its PRs (status, `/merge status`): once per wording. */
export function markHeld(s: Sink, unit: Unit, hold: MergeHold): void {
  const d = s.d;
  const entries = d.unitEntries(unit).filter((e) => e.state === 'TESTS_PASSED');
  if (entries.length === 0) return;
  const why = reason('merge_held', `tests passed; ${describeHold(hold, holdEndsAt(d, hold, d.now))}`);
  for (const e of entries) {
    if (e.reason?.code !== why.code || e.reason.message !== why.message) s.emit({ type: 'transition', entryId: e.id, to: 'TESTS_PASSED', reason: why });
  }
}

import type { Entry } from '../../domain/entry.js';
import { derivedId } from '../../domain/ids.js';
import { reason } from '../../domain/reasons.js';
import { isActive } from '../../domain/states.js';
import type { Draft, Sink } from '../draft.js';
import { dropResultsWith, isLanding, restartUnit } from '../invalidation.js';
import { placementIndex } from '../placement.js';
import { notReadyBecause, readinessLost } from '../readiness.js';
import { isLanded } from '../units.js';

/**
 * Stacked pull requests (docs/stacks.md): the members of a stack queued together, bottom up, are one
 * unit. It takes its place once every member is ready (one member not ready holds it, and the others
 * say which); a member queued later joins the unit, which is tested again as a whole; a member that
 * loses readiness takes the unit back out; a member that leaves the queue takes the members above it
 * out, since each of them holds its changes. Bisection of a failed stack is that of a batch
 * (bisect-batch.ts), except that the members above the culprit leave with it.
 */
export function maintainStacks(s: Sink): void {
  const d = s.d;
  for (const members of stacksOf(d).values()) {
    if (removeAboveGap(s, members)) continue;
    if (holdOnLostReadiness(s, members)) continue;
    placeWhenReady(s, members);
  }
}

/** Active members of each stack, bottom up. */
function stacksOf(d: Draft): Map<string, Entry[]> {
  const out = new Map<string, Entry[]>();
  for (const e of d.entries.values()) {
    if (!e.stack) continue;
    const list = out.get(e.stack.id) ?? [];
    list.push(e);
    out.set(e.stack.id, list);
  }
  for (const list of out.values()) list.sort((a, b) => a.stack!.position - b.stack!.position);
  return out;
}

/**
 * A member that failed or was cancelled takes every active member above it out of the queue:
 * `stack_member_failed`, naming it. Members below it stay queued.
 */
function removeAboveGap(s: Sink, members: Entry[]): boolean {
  const gone = members.find((e) => e.state === 'FAILED' || e.state === 'CANCELLED');
  if (!gone) return false;
  const above = members.filter((e) => isActive(e.state) && e.stack!.position > gone.stack!.position && !e.mergeIntent);
  if (above.length === 0) return false;
  const to = gone.state === 'FAILED' ? 'FAILED' : 'CANCELLED';
  const what = gone.state === 'FAILED' ? 'failed' : `left the queue (${gone.reason?.message ?? 'cancelled'})`;
  const why = reason('stack_member_failed', `#${gone.prNumber} below it in its stack ${what}: it holds those changes, so it leaves too`);
  for (const e of above) {
    s.emit({ type: 'unplaceEntry', entryId: e.id });
    s.emit({ type: 'transition', entryId: e.id, to, reason: why, set: { testRunId: null, mergeIntent: null } });
    dropResultsWith(s, e.id, why);
  }
  return true;
}

/** A PENDING member that definitely lost its readiness takes the whole stack back to NOT_READY. */
function holdOnLostReadiness(s: Sink, members: Entry[]): boolean {
  const d = s.d;
  const lost = members.find((e) => e.state === 'PENDING' && readinessLost(e, d.settings) !== null);
  if (!lost) return false;
  const why = reason('not_ready', `stack member #${lost.prNumber} is not ready: ${readinessLost(lost, d.settings)}`);
  for (const e of members) {
    if (e.state !== 'PENDING' || e.mergeIntent) continue;
    s.emit({ type: 'unplaceEntry', entryId: e.id });
    s.emit({ type: 'transition', entryId: e.id, to: 'NOT_READY', reason: why, set: { readyAt: null, testRunId: null } });
  }
  return true;
}

/**
 * NOT_READY members that are ready take their place with the rest of the stack as one unit, once no
 * member is waiting any more; members already in the queue are joined (their results are dropped:
 * the unit is tested again as a whole).
 */
function placeWhenReady(s: Sink, members: Entry[]): void {
  const d = s.d;
  const waiting = members.filter((e) => e.state === 'NOT_READY');
  if (waiting.length === 0) return;
  const blocker = waiting.find((e) => notReadyBecause(e, d.settings) !== null);
  if (blocker) {
    const note = `waiting for stack member #${blocker.prNumber}: ${notReadyBecause(blocker, d.settings)}`;
    for (const e of waiting) {
      if (e === blocker || e.reason?.message === note) continue;
      s.emit({ type: 'transition', entryId: e.id, to: 'NOT_READY', reason: reason('not_ready', note) });
    }
    return;
  }
  const active = members.filter((e) => isActive(e.state));
  const lowest = Math.min(...waiting.map((e) => e.stack!.position));
  const below = active.filter((e) => e.stack!.position < lowest);
  // Members that bisection took out above the culprit wait for its verdict: they come back once
  // it has landed, or its flake rerun passed and it re-entered the queue (`retry_passed`).
  if (waiting.some(leftAFailedUnit) && below.some((e) => !isLanded(e) && e.reason?.code !== 'retry_passed')) return;
  // They join the unit of the highest member placed below them (a cleared part below it lands on its own).
  const placed = below.filter((e) => d.unitOfEntry(e.id) !== undefined);
  const placedUnit = placed.length > 0 ? d.unitOfEntry(placed[placed.length - 1]!.id) : undefined;
  if (placedUnit && isLanding(d, placedUnit)) return; // joins once its landing is recorded
  const seq = d.nextSeq;
  const waitingIds = waiting.map((e) => e.id);
  const unit = { id: derivedId(d.base.id, 'unit', seq), entryIds: placedUnit ? joined(d, placedUnit.entryIds, waitingIds) : waitingIds, createdAt: d.nowIso };
  let index: number;
  if (placedUnit) {
    index = d.unitIndex().get(placedUnit.id)!;
    const size = unit.entryIds.filter((id) => d.entry(id)!.stack?.id === members[0]!.stack!.id).length;
    const grown = reason('ready', `its stack grew to ${size} members: tested again as one unit`);
    restartUnit(s, placedUnit, grown);
    for (const id of placedUnit.entryIds) dropResultsWith(s, id, grown);
    for (const id of placedUnit.entryIds) s.emit({ type: 'unplaceEntry', entryId: id });
  } else {
    index = placementIndex(d, Math.min(...waiting.map((e) => e.priorityValue)), unit, false);
  }
  s.emit({ type: 'placeUnit', unit, index, seq });
  const ready = reason('ready', `ready with its stack (${active.filter((e) => unit.entryIds.includes(e.id)).map((e) => `#${e.prNumber}`).join(', ')}): waiting for a test run`);
  for (const e of waiting) {
    s.emit({ type: 'transition', entryId: e.id, to: 'PENDING', reason: ready, set: { readyAt: d.nowIso, testRunId: null, retriesUsed: 0 } });
  }
}

/** The unit's entries with the waiting members inserted right after the last member of their stack. */
function joined(d: Draft, unitIds: readonly string[], waitingIds: readonly string[]): string[] {
  const stack = d.entry(waitingIds[0]!)!.stack!.id;
  let after = -1;
  unitIds.forEach((id, i) => {
    if (d.entry(id)?.stack?.id === stack) after = i;
  });
  return [...unitIds.slice(0, after + 1), ...waitingIds, ...unitIds.slice(after + 1)];
}

/** Whether the member was taken out of a failed unit (bisection named a culprit below it). */
function leftAFailedUnit(e: Entry): boolean {
  for (let i = e.history.length - 1; i >= 0; i--) {
    const state = e.history[i]!.state;
    if (state !== 'NOT_READY') return state === 'PENDING_FAILURE';
  }
  return false;
}

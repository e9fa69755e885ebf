import { derivedId } from '../../domain/ids.js';
import { reason } from '../../domain/reasons.js';
import type { Sink } from '../draft.js';
import { isLanding } from '../invalidation.js';
import { placementIndex } from '../placement.js';
import { allTargetsWait, waitingSince } from '../all-admission.js';
import { notReadyBecause, readinessLost } from '../readiness.js';

/**
 * NOT_READY -> PENDING when ready (taking a place in queue order; an `ALL` PR in parallel mode may
 * wait for a quieter moment first, see all-admission.ts); PENDING -> NOT_READY when not.
 */
export function updateReadiness(s: Sink): void {
  const d = s.d;
  const becameReady = [];
  for (const e of d.entries.values()) {
    // Stack members are placed with their stack (stacks.ts).
    if (e.state === 'NOT_READY' && !e.stack && notReadyBecause(e, d.settings) === null) becameReady.push(e);
  }
  becameReady.sort((a, b) => a.priorityValue - b.priorityValue || a.seq - b.seq);
  for (const e of becameReady) {
    const seq = d.nextSeq;
    const unit = { id: derivedId(d.base.id, 'unit', seq), entryIds: [e.id], createdAt: d.nowIso };
    const wait = allTargetsWait(d, e, unit);
    if (wait) {
      if (!waitingSince(e)) s.emit({ type: 'transition', entryId: e.id, to: 'NOT_READY', reason: wait });
      continue;
    }
    const index = placementIndex(d, e.priorityValue, unit, false);
    // A unit merging behind that place (in parallel mode one may merge past units it does not depend
    // on) was tested without this one: the PR takes its place once those merges are recorded.
    if (d.units.slice(index).some((u) => isLanding(d, u))) continue;
    s.emit({ type: 'placeUnit', unit, index, seq });
    s.emit({
      type: 'transition',
      entryId: e.id,
      to: 'PENDING',
      reason: reason('ready', 'ready: waiting for a test run'),
      set: { readyAt: d.nowIso, testRunId: null, retriesUsed: 0 },
    });
  }

  for (const e of [...d.entries.values()]) {
    if (e.state !== 'PENDING' || e.stack) continue;
    const lost = readinessLost(e, d.settings);
    if (lost === null) continue;
    s.emit({ type: 'unplaceEntry', entryId: e.id });
    s.emit({ type: 'transition', entryId: e.id, to: 'NOT_READY', reason: reason('not_ready', lost), set: { readyAt: null } });
  }
}

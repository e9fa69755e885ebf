import type { Unit } from '../domain/queue.js';
import { SKIP_THE_LINE_PRIORITY } from '../domain/priority.js';
import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import { isPending, unitPriority, unitState } from './units.js';
import { impactsAll } from './queue-graph.js';

/**
 * Where a unit of priority `p` joins queue order (rule 11): ahead of PENDING units of a lower
 * priority (a higher value), behind everything already testing, passed or pending failure; `urgent`
 * goes ahead of all that too, behind only what is merging and the urgent units before it.
 * In parallel mode an `ALL` unit goes ahead of every unit not yet proven (see `provenPrefix`).
 * `unit` is the unit being placed; `moving` when it already has a place.
 */
export function placementIndex(d: Draft, p: number, unit: Unit, moving: boolean): number {
  const units = moving ? d.units.filter((u) => u.id !== unit.id) : d.units;
  let index: number;
  if (p <= SKIP_THE_LINE_PRIORITY) {
    let i = 0;
    while (i < units.length && (isLanding(d, units[i]!) || unitPriority(d, units[i]!) <= p)) i++;
    index = i;
  } else {
    let i = units.length;
    while (i > 0 && isPending(d, units[i - 1]!) && unitPriority(d, units[i - 1]!) > p) i--;
    index = i;
  }
  if (d.settings.mode === 'parallel' && impactsAll(d, unit)) index = Math.min(index, provenPrefix(d, units, p));
  return index;
}

/**
 * mergeq's `ALL` policy (docs/all-targets.md): an `ALL` unit is placed right behind the units that
 * are proven (passed or merging), of a higher priority or `ALL` themselves (so that `ALL` units never
 * overtake one another), ahead of the ones still under test — they
 * restart on top of it. It is then tested on a proven base at once, and the lanes behind it build
 * on one unit that will most likely pass rather than on every unproven unit ahead of it.
 */
function provenPrefix(d: Draft, units: readonly Unit[], p: number): number {
  let i = 0;
  while (i < units.length) {
    const u = units[i]!;
    const stays = isLanding(d, u) || unitState(d, u) === 'TESTS_PASSED' || unitPriority(d, u) < p || impactsAll(d, u);
    if (!stays) break;
    i++;
  }
  return i;
}

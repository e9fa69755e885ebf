import type { Unit } from '../domain/queue.js';
import { SKIP_THE_LINE_PRIORITY } from '../domain/priority.js';
import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import { isPending, unitPriority } from './units.js';

/**
 * Where a unit of priority `p` joins queue order (rule 11): ahead of PENDING units of a lower
 * priority (a higher value), behind everything already testing, passed or pending failure; `urgent`
 * goes ahead of all that too, behind only what is merging and the urgent units before it.
 */
export function placementIndex(d: Draft, p: number, except?: Unit): number {
  const units = except ? d.units.filter((u) => u.id !== except.id) : d.units;
  if (p <= SKIP_THE_LINE_PRIORITY) {
    let i = 0;
    while (i < units.length && (isLanding(d, units[i]!) || unitPriority(d, units[i]!) <= p)) i++;
    return i;
  }
  let i = units.length;
  while (i > 0 && isPending(d, units[i - 1]!) && unitPriority(d, units[i - 1]!) > p) i--;
  return i;
}

import type { QueueDoc } from './queue.js';

/**
 * Queue order is the order of `queue.units`; an entry's position is its 1-based place among the
 * entries of all units, flattened. Entries in no unit (NOT_READY) have no position.
 */
export function positionsOf(queue: Pick<QueueDoc, 'units'>): Map<string, number> {
  const positions = new Map<string, number>();
  for (const unit of queue.units) {
    for (const entryId of unit.entryIds) positions.set(entryId, positions.size + 1);
  }
  return positions;
}

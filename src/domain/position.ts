import type { QueueDoc, Unit } from './queue.js';

/**
 * Queue order is the order of `queue.units`; an entry's position is its 1-based place among the
 * entries of all units, flattened. Entries in no unit (NOT_READY) have no position.
 */
export function positionsOf(queue: Pick<QueueDoc, 'units'>): ReadonlyMap<string, number> {
  // Documents are never changed in place, so the positions of one units array hold for good.
  let positions = byUnits.get(queue.units);
  if (!positions) {
    const map = new Map<string, number>();
    for (const unit of queue.units) {
      for (const entryId of unit.entryIds) map.set(entryId, map.size + 1);
    }
    byUnits.set(queue.units, (positions = map));
  }
  return positions;
}

const byUnits = new WeakMap<readonly Unit[], ReadonlyMap<string, number>>();

/** One entry's position (positionsOf for one entry, without building the map). */
export function positionOf(queue: Pick<QueueDoc, 'units'>, entryId: string): number | null {
  let position = 0;
  for (const unit of queue.units) {
    for (const id of unit.entryIds) {
      position++;
      if (id === entryId) return position;
    }
  }
  return null;
}

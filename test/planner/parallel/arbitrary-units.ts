import fc from 'fast-check';
import type { TargetSet } from '../../../src/domain/targets.js';
import type { GraphUnit } from '../../../src/planner/parallel/dependency-graph.js';

/** A sorted, de-duplicated id list drawn from ids 0..universe-1, possibly empty. */
export function arbitraryIdList(universe: number, maxLength: number, minLength = 0): fc.Arbitrary<Uint32Array> {
  return fc
    .uniqueArray(fc.nat({ max: universe - 1 }), { minLength, maxLength, size: 'max' })
    .map((ids) => Uint32Array.from(ids).sort());
}

export function arbitraryTargetSet(universe: number, maxLength: number): fc.Arbitrary<TargetSet> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('ALL' as const) },
    { weight: 8, arbitrary: arbitraryIdList(universe, maxLength) },
  );
}

/**
 * Queues of up to 30 units over small universes (1 to 12 targets), so that overlaps, empty lists,
 * ALL units and excluded units all occur often.
 */
export const arbitraryQueue: fc.Arbitrary<GraphUnit[]> = fc
  .integer({ min: 1, max: 12 })
  .chain((universe) =>
    fc.array(
      fc.record({
        targets: arbitraryTargetSet(universe, 4),
        excluded: fc.boolean().chain((maybe) => (maybe ? fc.boolean() : fc.constant(false))),
      }),
      { maxLength: 30, size: 'max' },
    ),
  )
  .map((units) => units.map((unit, i) => ({ id: `unit-${i}`, ...unit })));

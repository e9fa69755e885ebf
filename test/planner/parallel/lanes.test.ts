import fc from 'fast-check';
import { buildDependencyGraph } from '../../../src/planner/parallel/dependency-graph.js';
import { findLanes } from '../../../src/planner/parallel/lanes.js';
import { arbitraryQueue } from './arbitrary-units.js';
import { naiveLaneLeaders } from './reference-graph.js';

const ids = (...values: number[]) => Uint32Array.from(values);

describe('findLanes', () => {
  it('keeps unrelated units apart until an ALL unit joins them', () => {
    const units = [
      { id: 'a', targets: ids(1), excluded: false },
      { id: 'b', targets: ids(2), excluded: false },
      { id: 'c', targets: ids(1, 3), excluded: false },
      { id: 'suspect', targets: ids(2, 3), excluded: true },
      { id: 'd', targets: ids(4), excluded: false },
    ];
    const before = findLanes(buildDependencyGraph(units));
    expect(before.lanes).toEqual([[0, 2], [1], [4]]);
    expect(Array.from(before.laneOfUnit)).toEqual([0, 1, 0, -1, 2]);

    const withAll = findLanes(buildDependencyGraph([...units, { id: 'all', targets: 'ALL', excluded: false }]));
    expect(withAll.lanes).toEqual([[0, 1, 2, 4, 5]]);
  });

  it('groups included units exactly as chains of intersecting units link them, in queue order', () => {
    fc.assert(
      fc.property(arbitraryQueue, (units) => {
        const { lanes, laneOfUnit } = findLanes(buildDependencyGraph(units));
        const leaders = naiveLaneLeaders(units);
        const expected = new Map<number, number[]>();
        leaders.forEach((leader, k) => {
          if (leader >= 0) expected.set(leader, [...(expected.get(leader) ?? []), k]);
        });
        expect(lanes).toEqual([...expected.values()]);
        const expectedLaneOf = units.map((_, k) => lanes.findIndex((lane) => lane.includes(k)));
        expect(Array.from(laneOfUnit)).toEqual(expectedLaneOf);
      }),
      { numRuns: 500 },
    );
  });
});

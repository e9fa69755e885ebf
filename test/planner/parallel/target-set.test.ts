import fc from 'fast-check';
import { intersects, union } from '../../../src/planner/parallel/target-set.js';
import { arbitraryIdList, arbitraryTargetSet } from './arbitrary-units.js';
import { naiveIntersects } from './reference-graph.js';

const ids = (...values: number[]) => Uint32Array.from(values);

describe('intersects', () => {
  it('follows the spec: ALL intersects everything, even an empty list; an empty list nothing else', () => {
    expect(intersects('ALL', ids())).toBe(true);
    expect(intersects(ids(), 'ALL')).toBe(true);
    expect(intersects('ALL', 'ALL')).toBe(true);
    expect(intersects(ids(), ids())).toBe(false);
    expect(intersects(ids(), ids(1, 2))).toBe(false);
  });

  it('is true exactly when two lists share an id', () => {
    expect(intersects(ids(1, 5, 9), ids(2, 5))).toBe(true);
    expect(intersects(ids(1, 5, 9), ids(2, 6, 10))).toBe(false);
    expect(intersects(ids(1, 2), ids(3, 4))).toBe(false);
    expect(intersects(ids(7), ids(7))).toBe(true);
  });

  it('agrees with set intersection for sets of similar size', () => {
    fc.assert(
      fc.property(arbitraryTargetSet(40, 30), arbitraryTargetSet(40, 30), (a, b) => {
        expect(intersects(a, b)).toBe(naiveIntersects(a, b));
        expect(intersects(b, a)).toBe(naiveIntersects(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with set intersection when one list is much longer than the other', () => {
    fc.assert(
      fc.property(arbitraryIdList(1500, 4, 1), arbitraryIdList(1500, 600, 100), (small, large) => {
        expect(intersects(small, large)).toBe(naiveIntersects(small, large));
        expect(intersects(large, small)).toBe(naiveIntersects(small, large));
      }),
      { numRuns: 300 },
    );
  });
});

describe('union', () => {
  it('is ALL when any entry is ALL, and empty for no entries or only empty lists', () => {
    expect(union([ids(1), 'ALL', ids(2)])).toBe('ALL');
    expect(union([])).toEqual(ids());
    expect(union([ids(), ids()])).toEqual(ids());
  });

  it('holds every id of every list once, sorted, and leaves its inputs unchanged', () => {
    fc.assert(
      fc.property(fc.array(arbitraryIdList(60, 25), { maxLength: 9 }), (lists) => {
        const before = lists.map((list) => Array.from(list));
        const result = union(lists);
        const expected = [...new Set(before.flat())].sort((x, y) => x - y);
        expect(result).not.toBe('ALL');
        expect(Array.from(result as Uint32Array)).toEqual(expected);
        expect(lists.map((list) => Array.from(list))).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});

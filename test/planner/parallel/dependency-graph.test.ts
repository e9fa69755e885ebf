import fc from 'fast-check';
import type { ImpactedTargets } from '../../../src/domain/targets.js';
import { buildDependencyGraph, type GraphUnit } from '../../../src/planner/parallel/dependency-graph.js';
import { TargetInterner } from '../../../src/planner/parallel/interner.js';
import { arbitraryQueue } from './arbitrary-units.js';
import { naiveClosureAhead, naiveDependsOn, naiveDirectDependencies } from './reference-graph.js';

/** Units in queue order, from PR-like target lists; names starting with '!' are excluded. */
function queue(...units: [string, ImpactedTargets][]): GraphUnit[] {
  const interner = new TargetInterner();
  return units.map(([name, targets]) => ({
    id: name.replace('!', ''),
    targets: interner.toTargetSet(targets),
    excluded: name.startsWith('!'),
  }));
}
const list = (...targets: string[]): ImpactedTargets => ({ all: false, targets });
const ALL: ImpactedTargets = { all: true };

function closureIds(units: GraphUnit[], index: number): string[] {
  return buildDependencyGraph(units)
    .closureAhead(index)
    .map((i) => units[i]!.id);
}

describe('closureAhead', () => {
  it('takes the units sharing a target and what they depend on, not unrelated units', () => {
    const units = queue(
      ['a', list('//lib:x')],
      ['b', list('//lib:y')],
      ['c', list('//app:z')],
      ['d', list('//lib:y', '//tools:w')],
      ['e', list('//tools:w')],
    );
    expect(closureIds(units, 4)).toEqual(['b', 'd']);
    expect(closureIds(units, 2)).toEqual([]);
    expect(closureIds(units, 0)).toEqual([]);
  });

  it('no longer links units through a suspect that was taken out of the graph', () => {
    const linked = queue(['a', list('x')], ['s', list('x', 'y')], ['c', list('y')]);
    expect(closureIds(linked, 2)).toEqual(['a', 's']);
    const suspectOut = queue(['a', list('x')], ['!s', list('x', 'y')], ['c', list('y')]);
    expect(closureIds(suspectOut, 2)).toEqual([]);
  });

  it('makes an ALL unit join every unit ahead, and every unit behind depend on it, empty lists included', () => {
    const units = queue(
      ['a', list('x')],
      ['b', list('y')],
      ['all', ALL],
      ['empty', list()],
      ['c', list('z')],
    );
    expect(closureIds(units, 2)).toEqual(['a', 'b']);
    expect(closureIds(units, 3)).toEqual(['a', 'b', 'all']);
    expect(closureIds(units, 4)).toEqual(['a', 'b', 'all']);
  });

  it('stops treating a failing ALL unit as a barrier once it is a suspect', () => {
    const units = queue(['a', list('x')], ['!all', ALL], ['c', list('y')], ['d', list('x')]);
    expect(closureIds(units, 2)).toEqual([]);
    expect(closureIds(units, 3)).toEqual(['a']);
  });

  it('leaves a unit with an empty list independent when no ALL unit is ahead', () => {
    const units = queue(['a', list('x')], ['empty', list()], ['b', list('x')]);
    expect(closureIds(units, 1)).toEqual([]);
    expect(closureIds(units, 2)).toEqual(['a']);
  });

  it('refuses an excluded unit or an index outside the queue', () => {
    const graph = buildDependencyGraph(queue(['a', list('x')], ['!b', list('x')]));
    expect(() => graph.closureAhead(1)).toThrow(RangeError);
    expect(() => graph.closureAhead(2)).toThrow(RangeError);
    expect(() => graph.closureAhead(-1)).toThrow(RangeError);
    expect(graph.directDependencies(1)).toEqual([]);
  });

  it('follows a chain far longer than the call stack could recurse', () => {
    const length = 100_000;
    const units: GraphUnit[] = Array.from({ length }, (_, i) => ({
      id: `u${i}`,
      targets: Uint32Array.of(i, i + 1),
      excluded: false,
    }));
    const closure = buildDependencyGraph(units).closureAhead(length - 1);
    expect(closure.length).toBe(length - 1);
    expect(closure[0]).toBe(0);
    expect(closure[length - 2]).toBe(length - 2);
  });

  it('equals the transitive closure of pairwise intersection, without excluded units', () => {
    fc.assert(
      fc.property(arbitraryQueue, (units) => {
        const graph = buildDependencyGraph(units);
        units.forEach((unit, k) => {
          if (unit.excluded) return;
          expect(graph.closureAhead(k)).toEqual(naiveClosureAhead(units, k));
        });
      }),
      { numRuns: 500 },
    );
  });

  it('gives the same answer when asked again, in any order', () => {
    fc.assert(
      fc.property(arbitraryQueue, (units) => {
        const graph = buildDependencyGraph(units);
        const included = units.flatMap((unit, k) => (unit.excluded ? [] : [k]));
        const first = included.map((k) => graph.closureAhead(k));
        const again = [...included].reverse().map((k) => graph.closureAhead(k)).reverse();
        expect(again).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });
});

describe('answering in any order', () => {
  it('gives the reference answers whichever unit is asked about first', () => {
    const queueAndOrder = arbitraryQueue.chain((units) =>
      fc.tuple(fc.constant(units), fc.shuffledSubarray([...units.keys()], { minLength: units.length })),
    );
    fc.assert(
      fc.property(queueAndOrder, ([units, order]) => {
        const graph = buildDependencyGraph(units);
        for (const k of order) {
          expect(graph.directDependencies(k)).toEqual(naiveDirectDependencies(units, k));
          if (!units[k]!.excluded) expect(graph.closureAhead(k)).toEqual(naiveClosureAhead(units, k));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads no targets behind the units asked about', () => {
    const ahead = queue(['a', list('x')], ['b', list('y')], ['c', list('x', 'y')]);
    const unread: GraphUnit = {
      id: 'tail',
      excluded: false,
      get targets(): never {
        throw new Error('the targets of a unit behind were read');
      },
    };
    const graph = buildDependencyGraph([...ahead, unread, unread]);
    expect(graph.closureAhead(2)).toEqual([0, 1]);
    expect(graph.everyDependency(1, () => false)).toBe(true);
    expect(graph.isIncluded(4)).toBe(true);
    expect(() => graph.directDependencies(3)).toThrow('the targets of a unit behind were read');
  });
});

describe('directDependencies', () => {
  it('are the nearest holder of each target and the nearest ALL unit; an ALL unit takes all since the last', () => {
    fc.assert(
      fc.property(arbitraryQueue, (units) => {
        const graph = buildDependencyGraph(units);
        units.forEach((_, k) => {
          expect(graph.directDependencies(k)).toEqual(naiveDirectDependencies(units, k));
        });
      }),
      { numRuns: 500 },
    );
  });

  it('only name included units ahead that really intersect', () => {
    fc.assert(
      fc.property(arbitraryQueue, (units) => {
        const graph = buildDependencyGraph(units);
        units.forEach((_, k) => {
          for (const j of graph.directDependencies(k)) expect(naiveDependsOn(units, k, j)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });
});

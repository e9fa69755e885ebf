import fc from 'fast-check';
import type { Entry } from '../../../src/domain/entry.js';
import type { Unit } from '../../../src/domain/queue.js';
import type { TargetSet } from '../../../src/domain/targets.js';
import { Draft } from '../../../src/planner/draft.js';
import { AllGate } from '../../../src/planner/all-gate.js';
import { buildDependencyGraph, type GraphUnit } from '../../../src/planner/parallel/dependency-graph.js';
import { queueWithPrs, T0 } from '../builders.js';
import { arbitraryQueue } from './arbitrary-units.js';
import { naiveClosureAhead } from './reference-graph.js';

type GateState = 'PENDING' | 'TESTING' | 'TESTS_PASSED';

interface GateCase {
  units: GraphUnit[];
  states: GateState[];
  landing: boolean[];
}

const arbitraryCase: fc.Arbitrary<GateCase> = arbitraryQueue.chain((units) =>
  fc.record({
    units: fc.constant(units),
    states: fc.array(fc.constantFrom<GateState>('PENDING', 'TESTING', 'TESTS_PASSED'), { minLength: units.length, maxLength: units.length }),
    landing: fc.array(fc.boolean(), { minLength: units.length, maxLength: units.length }),
  }),
);

/** A draft of one-PR units in the given states, with the graph's targets; landing units have a merge intent. */
function draftOf({ units, states, landing }: GateCase): Draft {
  const q = queueWithPrs(units.length, { mode: 'parallel' });
  const entries: Entry[] = q.entries.map((e, i) => ({
    ...e,
    state: states[i]!,
    mergeIntent: landing[i] ? { runId: null, expectedSha: e.prSha, requestedAt: T0.toISOString() } : null,
  }));
  const queueUnits: Unit[] = entries.map((e, i) => ({ id: units[i]!.id, entryIds: [e.id], createdAt: T0.toISOString() }));
  const targets = new Map<string, TargetSet>(entries.map((e, i) => [e.id, units[i]!.targets]));
  return new Draft({ ...q, entries, units: queueUnits }, T0, targets);
}

/** The policy as docs/all-targets.md states it, walking each unit's closure. */
function naiveMayStart({ units, states, landing }: GateCase, k: number): boolean {
  if (units[k]!.excluded) return true;
  const closure = naiveClosureAhead(units, k).filter((j) => !landing[j]);
  // On proven units, or on earlier ALL units under test (a chain of ALL units).
  if (units[k]!.targets === 'ALL') return closure.every((j) => states[j] === 'TESTS_PASSED' || (states[j] === 'TESTING' && units[j]!.targets === 'ALL'));
  return closure.every((j) => !(states[j] === 'PENDING' && units[j]!.targets === 'ALL'));
}

describe('AllGate', () => {
  it('lets a unit start exactly when the policy walking its closure would', () => {
    fc.assert(
      fc.property(arbitraryCase, (c) => {
        const gate = new AllGate(draftOf(c), buildDependencyGraph(c.units));
        c.units.forEach((_, k) => expect([k, gate.mayStart(k)]).toEqual([k, naiveMayStart(c, k)]));
      }),
      { numRuns: 500 },
    );
  });

  it('is asked in queue order', () => {
    const c: GateCase = {
      units: [
        { id: 'a', targets: Uint32Array.of(1), excluded: false },
        { id: 'b', targets: Uint32Array.of(1), excluded: false },
      ],
      states: ['PENDING', 'PENDING'],
      landing: [false, false],
    };
    const gate = new AllGate(draftOf(c), buildDependencyGraph(c.units));
    expect(gate.mayStart(1)).toBe(true);
    expect(gate.mayStart(1)).toBe(true);
    expect(() => gate.mayStart(0)).toThrow(RangeError);
  });
});

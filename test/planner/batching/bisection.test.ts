import {
  bisectionOutcome,
  culprit,
  nextProbes,
  obsoleteProbes,
  type BisectionOptions,
  type ProbeResult,
} from '../../../src/planner/batching/index.js';
import { runSearch, truthfulOracle } from './bisection-simulator.js';

const skip: BisectionOptions = { skipRedundant: true };
const noSkip: BisectionOptions = { skipRedundant: false };
const results = (entries: Record<number, ProbeResult>) =>
  new Map(Object.entries(entries).map(([length, r]) => [Number(length), r]));

describe('nextProbes', () => {
  it('is a binary search with one run at a time', () => {
    // Batch of 8 whose first bad entry is 3.
    expect(nextProbes(8, results({}), 1, skip)).toEqual([4]);
    expect(nextProbes(8, results({ 4: 'pending' }), 1, skip)).toEqual([]);
    expect(nextProbes(8, results({ 4: 'failed' }), 1, skip)).toEqual([2]);
    expect(nextProbes(8, results({ 4: 'failed', 2: 'passed' }), 1, skip)).toEqual([3]);
    expect(nextProbes(8, results({ 4: 'failed', 2: 'passed', 3: 'failed' }), 1, skip)).toEqual([]);
    expect(culprit(8, results({ 4: 'failed', 2: 'passed', 3: 'failed' }), skip)).toBe(3);
  });

  it('starts c probes spread evenly over the batch', () => {
    expect(nextProbes(16, results({}), 3, skip)).toEqual([4, 8, 12]);
    expect(nextProbes(12, results({}), 3, skip)).toEqual([3, 6, 9]);
    expect(nextProbes(100, results({}), 4, skip)).toEqual([20, 40, 60, 80]);
  });

  it('narrows to the interval between the longest passing and the shortest failing prefix', () => {
    // 4 passed, 8 failed: the culprit is one of 5..8 and only 5, 6, 7 are worth testing.
    expect(nextProbes(16, results({ 4: 'passed', 8: 'failed', 12: 'failed' }), 3, skip)).toEqual([5, 6, 7]);
    expect(nextProbes(16, results({ 4: 'passed', 8: 'failed', 12: 'failed' }), 8, skip)).toEqual([5, 6, 7]);
  });

  it('counts runs in flight against the concurrency and splits around those still useful', () => {
    // 8 failed while 4 and 12 run: 12 is useless now but still holds a slot until cancelled.
    const known = results({ 4: 'pending', 8: 'failed', 12: 'pending' });
    expect(nextProbes(16, known, 3, skip)).toEqual([2]);
    expect(obsoleteProbes(16, known, skip)).toEqual([12]);
    expect(nextProbes(16, known, 4, skip)).toEqual([2, 6]);
    expect(nextProbes(16, known, 2, skip)).toEqual([]);
  });

  it('never retests a known prefix with skipRedundant, reusing same-base results', () => {
    // The batch of 4 failed; an earlier run on the same base showed its first 2 entries pass.
    const sameBaseResults = new Map([[2, 'passed' as const]]);
    const options = { skipRedundant: true, sameBaseResults };
    expect(nextProbes(4, results({}), 1, options)).toEqual([3]);
    expect(culprit(4, results({ 3: 'passed' }), options)).toBe(4);
    expect(nextProbes(4, results({ 3: 'passed' }), 1, options)).toEqual([]);

    const trace = runSearch(4, 1, options, truthfulOracle([4]));
    expect(trace.started).toEqual([3]);
    expect(trace.outcome).toEqual({ kind: 'culprit', index: 4 });
  });

  it('without skipRedundant, ignores earlier results and reruns the full batch before blaming its last entry', () => {
    const options = { skipRedundant: false, sameBaseResults: new Map([[2, 'passed' as const]]) };
    const trace = runSearch(4, 1, options, truthfulOracle([4]));
    expect(trace.started).toContain(2);
    expect(trace.started.at(-1)).toBe(4);
    expect(trace.outcome).toEqual({ kind: 'culprit', index: 4 });
    // The same search with the optimisation never runs the full batch again.
    expect(runSearch(4, 1, skip, truthfulOracle([4])).started).not.toContain(4);
  });

  it('starts nothing once the culprit is known', () => {
    expect(nextProbes(5, results({ 1: 'failed' }), 3, skip)).toEqual([]);
    expect(nextProbes(5, results({ 4: 'passed' }), 3, skip)).toEqual([]);
  });

  it('rejects lengths outside the batch and a concurrency below 1', () => {
    expect(() => nextProbes(4, results({ 5: 'passed' }), 1, skip)).toThrow(RangeError);
    expect(() => nextProbes(4, results({ 0: 'passed' }), 1, skip)).toThrow(RangeError);
    expect(() => nextProbes(4, results({}), 0, skip)).toThrow(RangeError);
    expect(() => nextProbes(0, results({}), 1, skip)).toThrow(RangeError);
  });
});

describe('culprit', () => {
  it.each([
    { where: 'first', bad: [1], n: 9 },
    { where: 'middle', bad: [5, 7], n: 9 },
    { where: 'last', bad: [9], n: 9 },
  ])('names the first bad entry when it is $where', ({ bad, n }) => {
    for (const concurrency of [1, 2, 3]) {
      for (const options of [skip, noSkip]) {
        const trace = runSearch(n, concurrency, options, truthfulOracle(bad));
        expect(trace.outcome).toEqual({ kind: 'culprit', index: bad[0] });
      }
    }
  });

  it('is null while the search goes on', () => {
    expect(culprit(8, results({}), skip)).toBeNull();
    expect(culprit(8, results({ 4: 'failed', 2: 'passed' }), skip)).toBeNull();
  });

  it('needs no search for a single-entry batch', () => {
    for (const options of [skip, noSkip]) {
      expect(culprit(1, results({}), options)).toBe(1);
      expect(nextProbes(1, results({}), 4, options)).toEqual([]);
    }
  });

  it('trusts a passing prefix over a shorter failing one (that failure was a flake)', () => {
    expect(culprit(8, results({ 2: 'failed', 1: 'passed' }), skip)).toBe(2);
    expect(culprit(8, results({ 2: 'failed', 1: 'passed', 5: 'passed' }), skip)).toBeNull();
    expect(nextProbes(8, results({ 2: 'failed', 5: 'passed' }), 1, skip)).toEqual([6]);
  });

  it('reports a full batch that passes on rerun without skipRedundant as all passed', () => {
    const trace = runSearch(6, 2, noSkip, truthfulOracle([]));
    expect(trace.outcome).toEqual({ kind: 'all_passed' });
    expect(trace.started).toContain(6);
    expect(culprit(6, results({ 6: 'passed' }), noSkip)).toBeNull();
    expect(bisectionOutcome(6, results({ 6: 'passed' }), noSkip)).toEqual({ kind: 'all_passed' });
  });
});

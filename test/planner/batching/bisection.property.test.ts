import fc from 'fast-check';
import type { BisectionOptions } from '../../../src/planner/batching/index.js';
import { ceilLog, runSearch, truthfulOracle, type Oracle } from './bisection-simulator.js';

/** A batch of 1..100 entries, its bad entries (the first one at a random place, others after it). */
const arbitraryFailingBatch = fc.integer({ min: 1, max: 100 }).chain((n) =>
  fc.integer({ min: 1, max: n }).chain((firstBad) =>
    fc
      .subarray(
        Array.from({ length: n - firstBad }, (_, i) => firstBad + 1 + i),
        { minLength: 0 },
      )
      .map((laterBad) => ({ n, bad: [firstBad, ...laterBad] })),
  ),
);
const arbitraryConcurrency = fc.integer({ min: 1, max: 8 });
const arbitraryOptions: fc.Arbitrary<BisectionOptions> = fc.boolean().map((skipRedundant) => ({ skipRedundant }));

describe('bisection against a truthful CI', () => {
  it('ends, names the first bad entry, never repeats a length and keeps within the concurrency', () => {
    fc.assert(
      fc.property(
        arbitraryFailingBatch,
        arbitraryConcurrency,
        arbitraryOptions,
        ({ n, bad }, concurrency, options) => {
          const trace = runSearch(n, concurrency, options, truthfulOracle(bad));
          expect(trace.outcome).toEqual({ kind: 'culprit', index: bad[0] });
          expect(new Set(trace.started).size).toBe(trace.started.length);
          expect(trace.maxInFlight).toBeLessThanOrEqual(concurrency);
          expect(trace.rounds).toBeLessThanOrEqual(ceilLog(concurrency + 1, n) + 1);
          if (options.skipRedundant) {
            expect(trace.rounds).toBeLessThanOrEqual(ceilLog(concurrency + 1, n));
            expect(trace.started).not.toContain(n);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('finds the same culprit whatever order the runs finish in', () => {
    fc.assert(
      fc.property(
        arbitraryFailingBatch,
        arbitraryConcurrency,
        arbitraryOptions,
        fc.array(fc.nat(), { maxLength: 200 }),
        ({ n, bad }, concurrency, options, finishingOrder) => {
          const trace = runSearch(n, concurrency, options, truthfulOracle(bad), finishingOrder);
          expect(trace.outcome).toEqual({ kind: 'culprit', index: bad[0] });
          expect(new Set(trace.started).size).toBe(trace.started.length);
          expect(trace.maxInFlight).toBeLessThanOrEqual(concurrency);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('without skipRedundant, clears a batch whose failure was a flake', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), arbitraryConcurrency, (n, concurrency) => {
        const trace = runSearch(n, concurrency, { skipRedundant: false }, truthfulOracle([]));
        // A single entry is never searched: its failure is its own and flake retries belong to the planner.
        expect(trace.outcome).toEqual(n === 1 ? { kind: 'culprit', index: 1 } : { kind: 'all_passed' });
        expect(trace.rounds).toBeLessThanOrEqual(ceilLog(concurrency + 1, n) + 1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('bisection against a flaky CI (runs may fail spuriously, never pass spuriously)', () => {
  it('still ends, and never lets a bad entry through nor blames an entry behind the first bad one', () => {
    fc.assert(
      fc.property(
        arbitraryFailingBatch,
        arbitraryConcurrency,
        arbitraryOptions,
        fc.array(fc.boolean(), { minLength: 101, maxLength: 101 }),
        fc.array(fc.nat(), { maxLength: 200 }),
        ({ n, bad }, concurrency, options, flakyAt, finishingOrder) => {
          const truth = truthfulOracle(bad);
          const flaky: Oracle = (length) => truth(length) && !flakyAt[length];
          const trace = runSearch(n, concurrency, options, flaky, finishingOrder);
          expect(new Set(trace.started).size).toBe(trace.started.length);
          expect(trace.maxInFlight).toBeLessThanOrEqual(concurrency);
          // The batch really fails, and a spurious failure can only point earlier than the real culprit;
          // everything ahead of the named entry was proven by a passing prefix, so it is good to merge.
          expect(trace.outcome.kind).toBe('culprit');
          if (trace.outcome.kind === 'culprit') expect(trace.outcome.index).toBeLessThanOrEqual(bad[0]!);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

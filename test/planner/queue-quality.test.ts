import { simulate, type SimResult } from './queue-sim.js';

/**
 * Queue quality over the real planner, in a small simulation of the s20 load (20 PRs/hour, CI
 * median 30 min / p90 60 min, 5% bad PRs, 10% flaky runs), with the settings recommended for single
 * mode: optimistic merging and a flake-evidence depth covering the PRs in flight. Deterministic
 * (seeded). The project's benchmark (src/sim) measures the same at scale with the real engine.
 */
const SEEDS = [1, 2, 3, 4];

function run(seed: number): SimResult {
  return simulate({
    prs: 250,
    perHour: 20,
    badRate: 0.05,
    flakeRate: 0.1,
    medianCiMinutes: 30,
    p90CiMinutes: 60,
    seed,
    settings: { concurrency: 24, canOptimisticallyMerge: true, pendingFailureDepth: 100, flakeRetries: 1 },
  });
}

test('single mode at s20 load: no bad PR merges, flakes fail under 2% of good PRs, and the queue keeps up', () => {
  const results = SEEDS.map(run);
  for (const r of results) {
    console.log(
      `p50 ${(r.p50Minutes / r.oracleP50Minutes).toFixed(2)}x the oracle, flake victims ${((100 * r.goodFailed) / r.good).toFixed(1)}%, ` +
        `unresolved ${r.unresolved}, CI runs per merged PR ${r.runsPerMerged.toFixed(2)}, slowest plan() ${r.slowestPlanMs.toFixed(0)} ms`,
    );
    expect(r.badMerged).toBe(0);
    expect(r.goodFailed / r.good).toBeLessThanOrEqual(0.02);
  }
  // Kept up: fewer than 5% of the PRs unresolved when the books close (benchmarks.md). A cluster of
  // bad PRs can still swamp a single queue (seed 1); not more than one seed in four.
  expect(results.filter((r) => r.unresolved < 0.05 * 250).length).toBeGreaterThanOrEqual(3);
  const ratios = results.map((r) => r.p50Minutes / r.oracleP50Minutes).sort((a, b) => a - b);
  expect((ratios[1]! + ratios[2]!) / 2).toBeLessThanOrEqual(2.5);
});

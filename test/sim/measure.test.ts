import { measure, oracle, percentile, type PrOutcome } from '../../src/sim/measure.js';
import { SCENARIOS } from '../../src/sim/scenario.js';
import { generateWorkload, shouldMerge, type SimPr } from '../../src/sim/workload.js';

/** Four PRs checked by hand: #2 is bad, #4 breaks the build together with #1. */
const prs: SimPr[] = [
  { index: 0, arrivalMinutes: 0, bad: false, breaksWith: null, targets: [], oracleCiMinutes: 30 },
  { index: 1, arrivalMinutes: 10, bad: true, breaksWith: null, targets: [], oracleCiMinutes: 20 },
  { index: 2, arrivalMinutes: 20, bad: false, breaksWith: null, targets: [], oracleCiMinutes: 40 },
  { index: 3, arrivalMinutes: 30, bad: false, breaksWith: 0, targets: [], oracleCiMinutes: 10 },
];

describe('simulation measurement', () => {
  it('computes the oracle: every PR that should merge does, one CI duration after it arrived', () => {
    expect(shouldMerge(prs)).toEqual([true, false, true, false]);
    const r = oracle(prs);
    expect(r).toMatchObject({
      name: 'oracle',
      merged: 2,
      failed: 2,
      goodFailed: 0,
      badMerged: 0,
      // Times in queue 30 and 40 minutes; nearest rank.
      timeInQueueP50Min: 30,
      timeInQueueP95Min: 40,
      p50VsOracle: 1,
      // Four PRs tested once each, two merged.
      ciRunsPerMerged: 2,
      backlogAtEnd: 0,
      keptUp: true,
    });
    // Arrivals p10..p90 = 0..30 min; one merge (#1 at 30 min) in that half hour.
    expect(r.mergedPerHour).toBe(2);
    expect(r.extra.conflictFailed).toBe(1);
  });

  it('counts flake victims, bad merges, the backlog and the ratio to the oracle', () => {
    const outcomes: PrOutcome[] = [
      { state: 'FAILED', mergedAtMinutes: null }, // good, nothing it conflicts with merged: a flake victim
      { state: 'MERGED', mergedAtMinutes: 60 }, // bad and merged
      { state: 'MERGED', mergedAtMinutes: 80 },
      { state: 'UNRESOLVED', mergedAtMinutes: null },
    ];
    const r = measure({ name: 'x', settings: { concurrency: 2 }, prs, outcomes, ciRuns: 9, oracleP50Min: 30 });
    expect(r).toMatchObject({ merged: 2, failed: 1, goodFailed: 1, badMerged: 1, backlogAtEnd: 1, keptUp: false });
    expect(r.timeInQueueP50Min).toBe(50);
    expect(r.timeInQueueP95Min).toBe(60);
    expect(r.p50VsOracle).toBe(1.67);
    expect(r.ciRunsPerMerged).toBe(4.5);
    expect(r.extra.goodFailedRate).toBe(0.3333);
  });

  it('does not count a PR failed because the one it breaks with merged as a victim', () => {
    const outcomes: PrOutcome[] = [
      { state: 'MERGED', mergedAtMinutes: 40 },
      { state: 'FAILED', mergedAtMinutes: null },
      { state: 'MERGED', mergedAtMinutes: 70 },
      { state: 'FAILED', mergedAtMinutes: null },
    ];
    const r = measure({ name: 'x', settings: null, prs, outcomes, ciRuns: 4, oracleP50Min: 30 });
    expect(r.goodFailed).toBe(0);
    expect(r.extra.conflictFailed).toBe(1);
    expect(r.keptUp).toBe(true);
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([5], 0.95)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.5)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBe(10);
  });
});

describe('simulated workload', () => {
  it('is the same for the same seed and follows the scenario rates', () => {
    const scenario = SCENARIOS.s100!;
    const a = generateWorkload(scenario, 42);
    expect(generateWorkload(scenario, 42)).toEqual(a);
    expect(generateWorkload(scenario, 43)).not.toEqual(a);
    expect(a).toHaveLength(4000);
    const hours = a.at(-1)!.arrivalMinutes / 60;
    expect(a.length / hours).toBeGreaterThan(90);
    expect(a.length / hours).toBeLessThan(110);
    const bad = a.filter((p) => p.bad).length / a.length;
    expect(bad).toBeGreaterThan(0.04);
    expect(bad).toBeLessThan(0.06);
    const conflicts = a.filter((p) => p.breaksWith !== null);
    expect(conflicts.length).toBeGreaterThan(20);
    expect(conflicts.length).toBeLessThan(65);
    for (const p of conflicts) expect(p.breaksWith!).toBeLessThan(p.index);
    const median = a.map((p) => p.oracleCiMinutes).sort((x, y) => x - y)[2000]!;
    expect(median).toBeGreaterThan(27);
    expect(median).toBeLessThan(33);
  });
});

import type { StrategyResult } from '../../src/sim/measure.js';
import { parseSeedRange, spread, summarizeSeeds } from '../../src/sim/seed-summary.js';

function row(name: string, p50VsOracle: number, ciRunsPerMerged: number, goodFailedRate: number, keptUp = true, badMerged = 0): StrategyResult {
  return {
    name,
    settings: null,
    merged: 100,
    failed: 5,
    goodFailed: 1,
    badMerged,
    mergedPerHour: 20,
    timeInQueueP50Min: 30,
    timeInQueueP95Min: 60,
    p50VsOracle,
    ciRunsPerMerged,
    backlogAtEnd: 0,
    keptUp,
    extra: { cancelled: 0, goodFailedRate, conflictFailed: 0, ciRuns: 0 },
  };
}

describe('benchmark summary over seeds', () => {
  it('gives each strategy the median and range of its figures, kept-up seeds and bad merges counted', () => {
    const summary = summarizeSeeds([
      [row('oracle', 1, 1.07, 0), row('parallel', 1.3, 1.6, 0.005)],
      [row('oracle', 1, 1.05, 0), row('parallel', 1.1, 1.4, 0.01, false, 1)],
      [row('oracle', 1, 1.09, 0), row('parallel', 1.2, 1.5, 0.007)],
      [row('oracle', 1, 1.06, 0), row('parallel', 1.15, 1.45, 0.002)],
    ]);
    expect(summary.map((s) => s.name)).toEqual(['oracle', 'parallel']);
    const parallel = summary[1]!;
    expect(parallel.seeds).toBe(4);
    // Even count: the mean of the two middle values.
    expect(parallel.p50VsOracle.median).toBeCloseTo(1.175);
    expect(parallel.p50VsOracle).toMatchObject({ min: 1.1, max: 1.3 });
    expect(parallel.ciRunsPerMerged.median).toBeCloseTo(1.475);
    expect(parallel.flakeVictimsPct.median).toBeCloseTo(0.6);
    expect(parallel.flakeVictimsPct.max).toBeCloseTo(1);
    expect(parallel.keptUp).toBe(3);
    expect(parallel.badMerged).toBe(1);
  });

  it('takes the middle value of an odd count', () => {
    expect(spread([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3 });
  });

  it('reads N and A-B seed ranges, and refuses empty or malformed ones', () => {
    expect(parseSeedRange('4')).toEqual([4]);
    expect(parseSeedRange('1-5')).toEqual([1, 2, 3, 4, 5]);
    expect(() => parseSeedRange('5-1')).toThrow('empty');
    expect(() => parseSeedRange('1..5')).toThrow('N or A-B');
    expect(() => parseSeedRange('1-5000')).toThrow('1,000');
  });
});

import { flakyOracle } from '../../src/sim/flaky-oracle.js';
import { oracle } from '../../src/sim/measure.js';
import { SCENARIOS } from '../../src/sim/scenario.js';
import { generateWorkload } from '../../src/sim/workload.js';

const s100 = SCENARIOS.s100!;

describe('the oracle with flakes (the floor of a queue that runs each PR once at a time)', () => {
  it('is the oracle when no run flakes', () => {
    const scenario = { ...s100, flakeRate: 0 };
    const prs = generateWorkload(scenario, 1);
    const best = oracle(prs);
    const floor = flakyOracle(prs, scenario, 1, best.timeInQueueP50Min);
    expect(floor).toMatchObject({
      name: 'oracle+flakes',
      merged: best.merged,
      failed: best.failed,
      timeInQueueP50Min: best.timeInQueueP50Min,
      timeInQueueP95Min: best.timeInQueueP95Min,
      p50VsOracle: 1,
      ciRunsPerMerged: best.ciRunsPerMerged,
    });
  });

  it('merges the same PRs later, with a rerun per flake: about 1.08x the oracle at 10% flakes reported at the end of a run', () => {
    const prs = generateWorkload(s100, 1);
    const best = oracle(prs);
    const floor = flakyOracle(prs, s100, 1, best.timeInQueueP50Min);
    expect(floor.merged).toBe(best.merged);
    expect(floor.goodFailed).toBe(0);
    // A PR whose first run flakes (10%) waits a second run: the median moves to the 0.555 quantile
    // of the duration, 1.077x its median for this log-normal.
    expect(floor.p50VsOracle).toBeGreaterThanOrEqual(1.05);
    expect(floor.p50VsOracle).toBeLessThanOrEqual(1.11);
    expect(floor.ciRunsPerMerged).toBeGreaterThan(best.ciRunsPerMerged + 0.08);
    expect(floor.timeInQueueP95Min).toBeGreaterThan(best.timeInQueueP95Min);
  });

  it('costs less when failing runs report at a uniform share of their duration, and is the same for the same seed', () => {
    const prs = generateWorkload(s100, 2);
    const p50 = oracle(prs).timeInQueueP50Min;
    const end = flakyOracle(prs, s100, 2, p50);
    const uniform = flakyOracle(prs, { ...s100, failureTiming: 'uniform' }, 2, p50);
    expect(uniform.timeInQueueP50Min).toBeLessThan(end.timeInQueueP50Min);
    expect(uniform.ciRunsPerMerged).toBe(end.ciRunsPerMerged);
    expect(flakyOracle(prs, s100, 2, p50)).toEqual(end);
  });
});

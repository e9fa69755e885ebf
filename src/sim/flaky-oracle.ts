import { Random, drawMinutes } from '../githost/sandbox/random.js';
import { measure, type PrOutcome, type StrategyResult } from './measure.js';
import type { Scenario } from './scenario.js';
import { shouldMerge, type SimPr } from './workload.js';

/**
 * The oracle of benchmarks.md with the scenario's flakes: every PR is tested on its own as soon as it
 * arrives, with the oracle's own duration for its first run; a run that flakes is rerun at once, when
 * its failure reports (at the end of its duration, or at a uniform share of it, as the scenario says);
 * the PRs that should merge do so when a run of theirs passes. Bad PRs take one run and fail.
 *
 * No queue that tests a PR with one run at a time can beat it: flakes are drawn per run, and a PR's
 * run that flakes can only be replaced by a later one. It is the floor of parallel mode with
 * independent lanes (each PR alone in its run); where a bar lies below it, only testing PRs more
 * than once at a time could reach the bar.
 */
export function flakyOracle(prs: readonly SimPr[], scenario: Scenario, seed: number, oracleP50Min: number): StrategyResult {
  const random = new Random(seed).fork('flaky-oracle');
  const merges = shouldMerge(prs);
  let ciRuns = 0;
  const outcomes = prs.map((p, i): PrOutcome => {
    ciRuns++;
    if (!merges[i]) return { state: 'FAILED', mergedAtMinutes: null };
    let minutes = p.oracleCiMinutes;
    let elapsed = 0;
    while (random.chance(scenario.flakeRate)) {
      // Drawn whatever the timing, so that both timings see the same flakes and durations.
      const share = random.next();
      elapsed += scenario.failureTiming === 'uniform' ? minutes * share : minutes;
      minutes = drawMinutes(scenario.ciDuration, random);
      ciRuns++;
    }
    return { state: 'MERGED', mergedAtMinutes: p.arrivalMinutes + elapsed + minutes };
  });
  return measure({ name: 'oracle+flakes', settings: null, prs, outcomes, ciRuns, oracleP50Min });
}

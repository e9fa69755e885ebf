import { STOP_TESTED_PRS_PER_PR, measure, oracle, round, stopBacklog, type StrategyResult } from './measure.js';
import { flakyOracle } from './flaky-oracle.js';
import type { Scenario } from './scenario.js';
import { simulate } from './simulate.js';
import type { Strategy } from './strategies.js';
import { generateWorkload, type SimPr } from './workload.js';

export interface BenchmarkResult {
  scenario: Scenario & { seed: number };
  strategies: StrategyResult[];
}

/** The oracle, the oracle with flakes, and each strategy over the same PRs and the same CI draws. */
export async function runBenchmark(
  scenario: Scenario,
  strategies: readonly Strategy[],
  seed: number,
  onResult?: (r: StrategyResult) => void,
): Promise<BenchmarkResult> {
  const prs = generateWorkload(scenario, seed);
  const best = oracle(prs);
  const floor = flakyOracle(prs, scenario, seed, best.timeInQueueP50Min);
  onResult?.(best);
  onResult?.(floor);
  const results = [best, floor];
  for (const strategy of strategies) {
    const r = await runStrategy(scenario, prs, strategy, seed, best.timeInQueueP50Min);
    onResult?.(r);
    results.push(r);
  }
  return { scenario: { ...scenario, seed }, strategies: results };
}

export async function runStrategy(scenario: Scenario, prs: readonly SimPr[], strategy: Strategy, seed: number, oracleP50Min: number): Promise<StrategyResult> {
  const sim = await simulate({
    scenario,
    prs,
    settings: strategy.settings,
    seed,
    stopAtBacklog: stopBacklog(prs.length),
    stopAtTestedPrsPerPr: STOP_TESTED_PRS_PER_PR,
  });
  const result = measure({ name: strategy.name, settings: strategy.settings, prs, outcomes: sim.outcomes, ciRuns: sim.ciRuns, oracleP50Min });
  const extra = { ...result.extra, reasons: sim.reasons, verdicts: sim.verdicts, wallSeconds: Math.round(sim.wallMs / 100) / 10, testedPrsPerPr: round(sim.testedPrs / prs.length, 1), etaErrors: sim.etaErrors, storms: sim.storms };
  if (sim.stopped === null) return { ...result, extra };
  return { ...result, keptUp: false, extra: { ...extra, stoppedAtMinutes: sim.stopped.atMinutes, stoppedBecause: sim.stopped.because } };
}

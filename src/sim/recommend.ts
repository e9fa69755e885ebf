import type { QueueSettings } from '../domain/settings.js';
import { oracle, type StrategyResult } from './measure.js';
import type { Scenario } from './scenario.js';
import { runStrategy } from './benchmark.js';
import { littleLawConcurrency } from './strategies.js';
import { generateWorkload } from './workload.js';

/** The acceptance bar a recommended setting must clear first. */
export const MAX_GOOD_FAILED_RATE = 0.02;

/** Single-mode settings worth trying for a scenario: concurrency around Little's law, flake handling. */
export function candidateSettings(scenario: Scenario): Partial<QueueSettings>[] {
  const base = littleLawConcurrency(scenario, 1);
  const concurrencies = [...new Set([Math.ceil(base * 1.25), Math.ceil(base * 1.75), Math.ceil(base * 2.5)])];
  const out: Partial<QueueSettings>[] = [];
  for (const concurrency of concurrencies)
    for (const flakeRetries of [0, 1, 2])
      for (const canOptimisticallyMerge of [false, true])
        for (const pendingFailureDepth of [0, 1, 2])
          out.push({ mode: 'single', batch: false, concurrency, flakeRetries, canOptimisticallyMerge, pendingFailureDepth });
  return out;
}

/** Orders results: acceptable ones first (kept up, nothing bad merged, few flake victims), then by p50, then CI cost. */
export function compareResults(a: StrategyResult, b: StrategyResult): number {
  const ok = (r: StrategyResult) => (r.keptUp && r.badMerged === 0 && r.extra.goodFailedRate <= MAX_GOOD_FAILED_RATE ? 0 : 1);
  return ok(a) - ok(b) || a.p50VsOracle - b.p50VsOracle || a.extra.goodFailedRate - b.extra.goodFailedRate || a.ciRunsPerMerged - b.ciRunsPerMerged;
}

/**
 * Searches the candidates on a shortened run of the scenario (`searchPrs` PRs), then re-measures the
 * best `finalists` on the full scenario.
 */
export async function recommend(
  scenario: Scenario,
  seed: number,
  opts: { searchPrs?: number; finalists?: number; onProgress?: (r: StrategyResult, phase: 'search' | 'final') => void } = {},
): Promise<StrategyResult[]> {
  const short = { ...scenario, prs: Math.min(scenario.prs, opts.searchPrs ?? 600) };
  const shortPrs = generateWorkload(short, seed);
  const shortOracle = oracle(shortPrs).timeInQueueP50Min;
  const searched: StrategyResult[] = [];
  for (const [i, settings] of candidateSettings(scenario).entries()) {
    const r = await runStrategy(short, shortPrs, { name: `candidate-${i + 1}`, settings }, seed, shortOracle);
    opts.onProgress?.(r, 'search');
    searched.push(r);
  }
  searched.sort(compareResults);
  const prs = generateWorkload(scenario, seed);
  const fullOracle = oracle(prs).timeInQueueP50Min;
  const finals: StrategyResult[] = [];
  for (const r of searched.slice(0, opts.finalists ?? 4)) {
    const full = await runStrategy(scenario, prs, { name: r.name, settings: r.settings ?? {} }, seed, fullOracle);
    opts.onProgress?.(full, 'final');
    finals.push(full);
  }
  return finals.sort(compareResults);
}

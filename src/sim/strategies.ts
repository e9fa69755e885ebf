import type { QueueSettings } from '../domain/settings.js';
import { meanMinutes } from '../githost/sandbox/random.js';
import type { Scenario } from './scenario.js';

export interface Strategy {
  name: string;
  settings: Partial<QueueSettings>;
}

/**
 * The single-mode settings found best per scenario with `--recommend` or by hand (re-run the search
 * when the planner changes and update this table), with the test model and without it
 * (`--no-test-model`): the two need different concurrency. Scenarios missing here use
 * `littleLawSettings`.
 */
export const BEST_SINGLE: Record<string, { withTestResults: Partial<QueueSettings>; withoutTestResults: Partial<QueueSettings> }> = {
  s20: {
    // Without the test model (planner of 2026-11-24, docs/readmission.md), failing runs reporting at
    // the end of their duration: concurrency 60 gave p50 1.11-1.41x the oracle on seeds 1-8 (median
    // 1.26x), 50 and 70 1.10-1.81x and 1.20-1.52x on seeds 1-5; flake victims 0.2-0.6%.
    // flakeRetries 0 gave ~2% victims; concurrency 100 fell behind on seed 1.
    withoutTestResults: { mode: 'single', concurrency: 60, flakeRetries: 1, canOptimisticallyMerge: true, pendingFailureDepth: 0 },
    // With it, seeds 1-16: concurrency 60 gave a median p50 of 1.57x, 80 1.39x, 100 1.37x before
    // blame by test (rule 4); pendingFailureDepth 1 was 5-11x, flakyTestRetries 1 and
    // skipRetryOnRealFailure off no better. With blame by test, 60, 80 and 100 all give 1.13x.
    withTestResults: { mode: 'single', concurrency: 100, flakeRetries: 1, canOptimisticallyMerge: true, pendingFailureDepth: 0 },
  },
};

/** The best known single-mode settings for the scenario as simulated (with its test model or not). */
export function singleSettings(scenario: Scenario): Partial<QueueSettings> {
  const best = BEST_SINGLE[scenario.name];
  if (!best) return littleLawSettings(scenario);
  return scenario.testModel ? best.withTestResults : best.withoutTestResults;
}

/** CI runs in flight needed to keep up with the arrivals (Little's law), with headroom for reruns. */
export function littleLawConcurrency(scenario: Scenario, headroom = 1.5): number {
  const inFlight = (scenario.prsPerHour * meanMinutes(scenario.ciDuration)) / 60;
  return Math.max(1, Math.min(1000, Math.ceil(inFlight * headroom)));
}

export function littleLawSettings(scenario: Scenario): Partial<QueueSettings> {
  return { mode: 'single', concurrency: littleLawConcurrency(scenario), batch: false };
}

/** Parallel mode: one run per lane unit, so Little's law with room for reruns. */
export function parallelSettings(scenario: Scenario): Partial<QueueSettings> {
  return { mode: 'parallel', concurrency: littleLawConcurrency(scenario, 2), batch: false, flakeRetries: 1, canOptimisticallyMerge: true };
}

/**
 * Batching on top of a queue's settings: batches of 4 wait at most 10 minutes (a third of a median
 * CI run), and a failing batch is bisected 3 prefixes at a time without repeating known results.
 */
export const BATCHING: Partial<QueueSettings> = {
  batch: true,
  batchingMinSize: 4,
  batchingMaxWaitTimeMinutes: 10,
  bisectionConcurrency: 3,
  optimizationMode: 'bisection_skip_redundant_tests',
};

/**
 * Single mode with batching. Searched on s20-clean (seed 1): the batches behind a failed batch wait
 * for its split (deep `pendingFailureDepth`) rather than being rebuilt twice, and a culprit named by
 * bisection is not rerun (its failure is confirmed by the prefix before it passing).
 */
export function batchSettings(scenario: Scenario): Partial<QueueSettings> {
  return {
    mode: 'single',
    concurrency: littleLawConcurrency(scenario),
    flakeRetries: 0,
    canOptimisticallyMerge: true,
    pendingFailureDepth: 20,
    ...BATCHING,
  };
}

/**
 * Parallel mode with batching. A batch's targets are the union of its PRs', so at 100 PRs/hour and
 * more, batches of 4 join the lanes into one (s500, seed 1: the queue fell hours behind); batches of
 * 2 keep them apart (s500: 1.50x the oracle, 1.26 CI runs per merged PR).
 */
export function parallelBatchSettings(scenario: Scenario): Partial<QueueSettings> {
  const busy = scenario.prsPerHour >= 100 ? { batchingMinSize: 2, batchingMaxWaitTimeMinutes: 5, bisectionConcurrency: 2 } : {};
  return { ...parallelSettings(scenario), ...BATCHING, ...busy };
}

export function defaultStrategies(scenario: Scenario): Strategy[] {
  return [
    { name: 'serial', settings: { mode: 'single', concurrency: 1, batch: false } },
    { name: 'single', settings: { mode: 'single', batch: false, ...singleSettings(scenario) } },
    { name: 'parallel', settings: parallelSettings(scenario) },
    { name: 'batch', settings: batchSettings(scenario) },
    { name: 'parallel+batch', settings: parallelBatchSettings(scenario) },
  ];
}

/**
 * The storm scenario (benchmarks.md, "Storms"): single mode without the guards (a bystander budget
 * no PR reaches), with the restart budgets (the defaults), with `stormPause`, and with both.
 */
export function stormStrategies(scenario: Scenario): Strategy[] {
  const single: Partial<QueueSettings> = { mode: 'single', batch: false, concurrency: 4 * littleLawConcurrency(scenario), flakeRetries: 1, canOptimisticallyMerge: true };
  const noBudgets = { restartBudgets: { bystander: 100, infrastructure: 2 } };
  return [
    { name: 'no guard', settings: { ...single, ...noBudgets, stormPause: false } },
    { name: 'budgets', settings: { ...single, stormPause: false } },
    { name: 'stormPause', settings: { ...single, ...noBudgets, stormPause: true } },
    { name: 'budgets+stormPause', settings: { ...single, stormPause: true } },
  ];
}

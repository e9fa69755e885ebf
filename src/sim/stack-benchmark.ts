import { KEPT_UP_BACKLOG_SHARE, measure, percentile, round, type StopReason } from './measure.js';
import type { CauseCount } from './run-causes.js';
import { simulate } from './simulate.js';
import type { Landing } from './stack-release.js';
import { generateStackWorkload, type StackScenario } from './stack-workload.js';
import { batchSettings, littleLawConcurrency, type Strategy } from './strategies.js';
import { textTable } from './table.js';
import type { SimPr } from './workload.js';

/** One row of the stack comparison (the JSON keys are part of the bench's output format). */
export interface StackRow {
  strategy: string;
  landing: Landing;
  prs: number;
  ciRuns: number;
  merged: number;
  ciRunsPerMerged: number;
  /** Time in queue of the merged PRs, from the arrival of their stack. */
  timeInQueueP50Min: number;
  timeInQueueP95Min: number;
  /** Failed members that left as the culprit of their own failure (bad, or a flake's victim). */
  culprits: number;
  /** Of those, good members: flake victims. */
  goodCulprits: number;
  /** Members that left with a failed layer below them (`stack_member_failed`). */
  leftWithStack: number;
  /** One by one: members never submitted because a layer below them did not land. */
  notSubmitted: number;
  cancelled: number;
  badMerged: number;
  /** Submitted and still queued when the books closed. */
  unresolved: number;
  wallSeconds: number;
  /** CI runs by why they were started (run-causes.ts). */
  runCauses: Record<string, CauseCount>;
  /** Set when the simulation stopped early (see `STACK_STOP_TESTED_PRS_PER_PR`): the figures cover the hours until then. */
  stopped?: { atMinutes: number; because: StopReason };
}

/**
 * A stack case stops once its CI runs held this many PRs per arrived PR: the cases that keep up stay
 * far below (one by one, about 30), and a queue restarting long units behind each failure passes it
 * within hours — simulating it to the end took minutes and ended at `STOP_TESTED_PRS_PER_PR` anyway.
 */
export const STACK_STOP_TESTED_PRS_PER_PR = 200;

export const LANDINGS: readonly Landing[] = ['unit', 'one-by-one'];

/** A single queue and a batching one, sized for the scenario's PR rate (Little's law). */
export function stackStrategies(scenario: StackScenario): Strategy[] {
  return [
    { name: 'single', settings: { mode: 'single', batch: false, concurrency: littleLawConcurrency(scenario), flakeRetries: 1, canOptimisticallyMerge: true, pendingFailureDepth: 0 } },
    { name: 'batch', settings: batchSettings(scenario) },
  ];
}

/** Each strategy over the same stacks and CI draws, landing them as units and one by one. */
export async function runStackBenchmark(
  scenario: StackScenario,
  strategies: readonly Strategy[],
  seed: number,
  onRow?: (r: StackRow) => void,
): Promise<{ prs: SimPr[]; rows: StackRow[] }> {
  const prs = generateStackWorkload(scenario, seed);
  const rows: StackRow[] = [];
  for (const strategy of strategies) {
    for (const landing of LANDINGS) {
      const row = await runStackCase(scenario, prs, strategy, landing, seed);
      onRow?.(row);
      rows.push(row);
    }
  }
  return { prs, rows };
}

export async function runStackCase(scenario: StackScenario, prs: readonly SimPr[], strategy: Strategy, landing: Landing, seed: number): Promise<StackRow> {
  const sim = await simulate({
    scenario,
    prs,
    settings: strategy.settings,
    seed,
    landing,
    // No backlog stop: a few stacks of 8 arriving together pass a quarter of a small scenario's PRs.
    stopAtTestedPrsPerPr: STACK_STOP_TESTED_PRS_PER_PR,
    runCauses: true,
  });
  const m = measure({ name: strategy.name, settings: strategy.settings, prs, outcomes: sim.outcomes, ciRuns: sim.ciRuns, oracleP50Min: null });
  const never = new Set(sim.notSubmitted);
  const failed = sim.outcomes.map((o, i) => ({ o, pr: prs[i]! })).filter(({ o }) => o.state === 'FAILED');
  const culprits = failed.filter(({ o }) => o.reason !== 'stack_member_failed');
  const times = sim.outcomes
    .map((o, i) => (o.mergedAtMinutes === null ? null : o.mergedAtMinutes - prs[i]!.arrivalMinutes))
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  return {
    strategy: strategy.name,
    landing,
    prs: prs.length,
    ciRuns: sim.ciRuns,
    merged: m.merged,
    ciRunsPerMerged: m.ciRunsPerMerged,
    timeInQueueP50Min: round(percentile(times, 0.5), 1),
    timeInQueueP95Min: round(percentile(times, 0.95), 1),
    culprits: culprits.length,
    goodCulprits: culprits.filter(({ pr }) => !pr.bad).length,
    leftWithStack: failed.length - culprits.length,
    notSubmitted: never.size,
    cancelled: m.extra.cancelled,
    badMerged: m.badMerged,
    unresolved: sim.outcomes.filter((o, i) => o.state === 'UNRESOLVED' && !never.has(i)).length,
    wallSeconds: round(sim.wallMs / 1000, 1),
    runCauses: sim.runCauses ?? {},
    ...(sim.stopped ? { stopped: sim.stopped } : {}),
  };
}

const COLUMNS: [string, (r: StackRow) => string][] = [
  ['strategy', (r) => r.strategy],
  ['landing', (r) => r.landing],
  ['CI runs/merged', (r) => r.ciRunsPerMerged.toFixed(2)],
  ['p50 min', (r) => r.timeInQueueP50Min.toFixed(1)],
  ['p95 min', (r) => r.timeInQueueP95Min.toFixed(1)],
  ['merged', (r) => `${r.merged}/${r.prs}`],
  ['CI runs', (r) => String(r.ciRuns)],
  ['culprits (good)', (r) => `${r.culprits} (${r.goodCulprits})`],
  ['left with stack', (r) => String(r.leftWithStack)],
  ['not submitted', (r) => String(r.notSubmitted)],
  ['bad merged', (r) => String(r.badMerged)],
  ['unresolved', (r) => String(r.unresolved)],
  ['wall s', (r) => r.wallSeconds.toFixed(1)],
  ['kept up', keptUp],
];

/** Kept up: ran to the close with under 5% of the PRs still queued (as `measure`'s `keptUp`). */
function keptUp(r: StackRow): string {
  if (r.stopped) return `NO, stopped at ${(r.stopped.atMinutes / 60).toFixed(1)} h (${r.stopped.because === 'ci_work' ? 'CI work' : 'backlog'})`;
  return r.unresolved < KEPT_UP_BACKLOG_SHARE * r.prs ? 'yes' : 'NO';
}

export function formatStackTable(rows: readonly StackRow[]): string {
  return textTable(COLUMNS, rows);
}

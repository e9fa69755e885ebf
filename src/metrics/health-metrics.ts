import { Gauge, type Registry } from 'prom-client';
import { RUN_KINDS } from '../domain/run.js';
import type { EtaCoverage } from '../service/queue/eta-coverage.js';
import type { HealthMeasures } from './health-measures.js';
import { UntypedMetric } from './untyped.js';

const LABELS = ['repo', 'branch', 'queue_type'] as const;
type Labels = Record<(typeof LABELS)[number], string>;

/** The health metrics (docs/metrics.md): what the shipped alert rules watch. */
export function defineHealthMetrics(registry: Registry) {
  const registers = [registry];
  const labelNames = LABELS;
  const untyped = (name: string, help: string) => new UntypedMetric({ name, help, labelNames, registers });
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames, registers });
  return {
    runsStarted: untyped('mq_ci_runs_1h_total', 'CI runs (test runs) started in the last hour, by run kind.'),
    runsPerMerged: gauge(
      'mq_ci_runs_per_merged_pr_1h',
      'CI runs started in the last hour (both kinds) per pull request merged in it; NaN when none merged.',
    ),
    flakeReruns: untyped('mq_flake_reruns_1h_total', 'Flake reruns (identical content run again after a failure) started in the last hour.'),
    timedOut: untyped('mq_test_runs_timed_out_1h_total', 'Test runs that got no CI result within the testing timeout, ended in the last hour.'),
    silent: gauge('mq_test_runs_silent_current', 'Test runs in flight for over 10 minutes with no status check reported on their test branch.'),
    stalled: gauge(
      'mq_merge_stalled_seconds',
      'Seconds ready pull requests have waited without a merge: since the last merge or the oldest one became ready, whichever is later; 0 when none waits or the queue is paused.',
    ),
    rangeChecked: untyped('mq_eta_range_checked_1h_total', 'Pull requests merged in the last hour whose first 80% ETA range this process saw given.'),
    rangeHeld: untyped('mq_eta_range_held_1h_total', 'Of those, the ones whose merge fell inside that range.'),
  };
}
export type HealthMetrics = ReturnType<typeof defineHealthMetrics>;

/** What one queue brings to the health metrics. */
export interface QueueHealth {
  labels: (queueType: string) => Labels;
  measures: HealthMeasures;
  /** PRs merged in the last hour. */
  merged: number;
  coverage: { checked: number; held: number };
}

/**
 * The queues' health into the metrics. Queues that share their labels (same owner/name on two hosts)
 * add up, as in the other metrics (`inc`, which by 0 still writes the series); of their stalls the
 * longer is shown, and the ratio is of their sums.
 */
export function recordHealth(metrics: HealthMetrics, queues: readonly QueueHealth[]): void {
  const perLabels = new Map<string, { labels: Labels; runs: number; merged: number; stalled: number }>();
  for (const { labels, measures: m, merged, coverage } of queues) {
    const main = labels('main');
    for (const kind of RUN_KINDS) {
      metrics.runsStarted.inc(labels(kind), m.runsStarted[kind]);
      metrics.flakeReruns.inc(labels(kind), m.flakeReruns[kind]);
      metrics.timedOut.inc(labels(kind), m.timedOut[kind]);
      metrics.silent.inc(labels(kind), m.silent[kind]);
    }
    metrics.rangeChecked.inc(main, coverage.checked);
    metrics.rangeHeld.inc(main, coverage.held);
    const key = JSON.stringify(main);
    const sum = perLabels.get(key) ?? { labels: main, runs: 0, merged: 0, stalled: 0 };
    sum.runs += RUN_KINDS.reduce((n, kind) => n + m.runsStarted[kind], 0);
    sum.merged += merged;
    sum.stalled = Math.max(sum.stalled, m.mergeStalledSeconds);
    perLabels.set(key, sum);
  }
  for (const { labels, runs, merged, stalled } of perLabels.values()) {
    metrics.stalled.set(labels, stalled);
    metrics.runsPerMerged.set(labels, merged === 0 ? Number.NaN : runs / merged);
  }
}

/** The coverage counts of a queue: from the process's tracker, or none. */
export function coverageOf(tracker: EtaCoverage | undefined, queueId: string, now: Date): { checked: number; held: number } {
  return tracker ? tracker.lastHour(queueId, now) : { checked: 0, held: 0 };
}

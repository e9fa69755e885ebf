import { Gauge, Histogram, Registry } from 'prom-client';
import type { QueueDoc } from '../domain/queue.js';
import { repoFullName } from '../domain/repo.js';
import { RUN_KINDS } from '../domain/run.js';
import { VERDICT_CODES } from '../domain/verdict/verdict.js';
import type { MetricsService } from '../service/metrics-service.js';
import { CONCLUSIONS, measureQueue, type QueueMeasures } from './queue-measures.js';
import type { EtaCoverage } from '../service/queue/eta-coverage.js';
import { measureHealth } from './health-measures.js';
import { coverageOf, defineHealthMetrics, recordHealth } from './health-metrics.js';
import type { ReconcileDurations } from './reconcile-durations.js';
import { recordTestCaseCounts } from './test-case-metrics.js';
import { defineHoldMetric, recordHold } from './hold-metrics.js';
import { defineStormMetric, recordStorm } from './storm-metrics.js';
import { UntypedMetric } from './untyped.js';
import { recordWebhookHealth } from './webhook-metrics.js';

/** The content type of the exposition format these metrics are written in (0.0.4). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const HOUR_MS = 60 * 60 * 1000;
/** Seconds; +Inf is added by prom-client. */
export const DURATION_BUCKETS: readonly number[] = [60, 300, 600, 900, 1800, 3600, 5400, 7200];

const QUEUE_LABELS = ['repo', 'branch', 'queue_type'] as const;
type QueueLabel = (typeof QUEUE_LABELS)[number];
type QueueLabels = Record<QueueLabel, string>;

function defineMetrics(registry: Registry) {
  const registers = [registry];
  const labelNames = QUEUE_LABELS;
  const histogram = (name: string, help: string) =>
    new Histogram({ name, help, labelNames, buckets: [...DURATION_BUCKETS], registers });
  return {
    depth: new Gauge({ name: 'mq_depth_current', help: 'Pull requests in the queue now (every active state).', labelNames, registers }),
    awaitingMergeability: new Gauge({
      name: 'mq_awaiting_mergeability',
      help: 'Pull requests in the queue that are not ready yet (NOT_READY).',
      labelNames,
      registers,
    }),
    testingSlotsActive: new Gauge({
      name: 'mq_testing_slots_active',
      help: 'Test runs in flight (being created or waiting for results).',
      labelNames,
      registers,
    }),
    conclusions: new UntypedMetric({
      name: 'mq_pr_conclusions_1h_total',
      help: 'Pull requests that left the queue in the last hour, by conclusion.',
      labelNames: [...QUEUE_LABELS, 'conclusion'],
      registers,
    }),
    verdicts: new UntypedMetric({
      name: 'mq_pr_verdicts_1h_total',
      help: 'Verdicts given in the last hour (a PR removed or restarted), by verdict: culprit, bystander, flaky, infrastructure, conflict, policy, manual.',
      labelNames: [...QUEUE_LABELS, 'verdict'],
      registers,
    }),
    restarts: new UntypedMetric({
      name: 'mq_pr_restarts_1h_total',
      help: 'Test restarts (TESTING -> PENDING) in the last hour.',
      labelNames,
      registers,
    }),
    restartLoopHolds: new UntypedMetric({
      name: 'mq_pr_restart_loop_holds_1h_total',
      help: 'Pull requests held in the last hour because they kept restarting without a verdict (restart_loop).',
      labelNames,
      registers,
    }),
    stacksLanded: new UntypedMetric({
      name: 'mq_stacks_landed_1h_total',
      help: 'Stacks of pull requests with a member merged in the last hour (a stack lands as one unit).',
      labelNames,
      registers,
    }),
    stackMembersLanded: new UntypedMetric({
      name: 'mq_stack_members_landed_1h_total',
      help: 'Stack members merged in the last hour; divided by mq_stacks_landed_1h_total, the members per landed stack.',
      labelNames,
      registers,
    }),
    stackRuns: new UntypedMetric({
      name: 'mq_stack_ci_runs_1h_total',
      help: 'CI runs that tested the stacks landed in the last hour (reruns and bisection included); divided by mq_stacks_landed_1h_total, the runs per landed stack.',
      labelNames,
      registers,
    }),
    waitDuration: histogram(
      'mq_pr_wait_duration_1h_seconds',
      'Seconds from submission to first test, of pull requests first tested in the last hour.',
    ),
    testDuration: histogram(
      'mq_pr_test_duration_1h_seconds',
      'Seconds from creation to result, of test runs that passed or failed in the last hour.',
    ),
    timeInQueue: histogram(
      'mq_pr_time_in_queue_1h_seconds',
      'Seconds from submission to leaving the queue, of pull requests that left in the last hour.',
    ),
  };
}
type QueueMetrics = ReturnType<typeof defineMetrics>;

/** What this process keeps beside the store: its reconciles' wall times, the ETA range's coverage. */
export interface ProcessMetrics {
  reconcileDurations?: ReconcileDurations;
  etaCoverage?: EtaCoverage;
  /** The GitHub App's writes. */
  more?: MoreQueueMetrics;
}

/**
 * Prometheus text (exposition format 0.0.4) for the queues of an organization, or of one repository
 * of it. Gauges describe `now`; the `_1h` metrics cover the hour before it. Every series of every
 * queue is written, at zero when nothing happened, so dashboards always find it. Queues that share
 * their labels (same owner/name on two hosts) are added together. With `reconcileDurations` (the
 * server's), `mq_reconcile_duration_seconds` follows.
 */
export async function renderQueueMetrics(
  service: MetricsService,
  orgId: string,
  filter: { repoKey?: string },
  now: Date,
  { reconcileDurations, etaCoverage, more }: ProcessMetrics = {},
): Promise<string> {
  const window = { since: now.getTime() - HOUR_MS, until: now.getTime() };
  const activities = await service.queueActivity(orgId, filter, new Date(window.since).toISOString());

  const registry = new Registry();
  const metrics = defineMetrics(registry);
  const health = defineHealthMetrics(registry);
  const held = defineHoldMetric(registry, QUEUE_LABELS);
  const storm = defineStormMetric(registry, QUEUE_LABELS);
  const labelled = activities.map((activity) => ({ activity, labels: labelsOf(activity.queue) }));
  // Histograms get their series first: zero() resets one, so it must not follow another queue's
  // observations under the same labels.
  for (const { labels } of labelled) {
    for (const histogram of [metrics.waitDuration, metrics.timeInQueue]) histogram.zero(labels('main'));
    for (const kind of RUN_KINDS) metrics.testDuration.zero(labels(kind));
  }
  const healths = labelled.map(({ activity, labels }) => {
    const measures = measureQueue(activity, window);
    record(metrics, labels, measures);
    recordHold(held, labels('main'), activity.queue, now);
    recordStorm(storm, labels('main'), activity.queue);
    return { labels, measures: measureHealth(activity, window), merged: measures.conclusions.merged, coverage: coverageOf(etaCoverage, activity.queue.id, now) };
  });
  recordHealth(health, healths);
  await recordTestCaseCounts(registry, service, orgId, activities.map((a) => a.queue));
  recordWebhookHealth(registry, await service.webhookHealth(orgId, filter), now);
  const queues = activities.map((a) => a.queue);
  const text = `${await registry.metrics()}${reconcileDurations ? reconcileDurations.render(queues) : ''}`;
  return more ? `${text}${await more.render(queues)}` : text;
}

/** Metrics the server keeps beside the queues' own (the GitHub App's writes), for the queues rendered. */
export interface MoreQueueMetrics {
  render(queues: readonly QueueDoc[]): Promise<string>;
}

/** `renderQueueMetrics` over one MetricsService (and what the server process keeps): what the HTTP door calls. */
export function metricsRenderer(service: MetricsService, process: ProcessMetrics = {}) {
  return (orgId: string, filter: { repoKey?: string }, now: Date): Promise<string> => renderQueueMetrics(service, orgId, filter, now, process);
}

function record(metrics: QueueMetrics, labels: (queueType: string) => QueueLabels, m: QueueMeasures): void {
  // Entries are counted in the main queue; runs by their kind.
  const main = labels('main');
  addTo(metrics.depth, main, m.depth);
  addTo(metrics.awaitingMergeability, main, m.awaitingMergeability);
  for (const conclusion of CONCLUSIONS) addTo(metrics.conclusions, { ...main, conclusion }, m.conclusions[conclusion]);
  addTo(metrics.restarts, main, m.restarts);
  addTo(metrics.restartLoopHolds, main, m.restartLoopHolds);
  addTo(metrics.stacksLanded, main, m.stacksLanded);
  addTo(metrics.stackMembersLanded, main, m.stackMembersLanded);
  addTo(metrics.stackRuns, main, m.stackRuns);
  for (const verdict of VERDICT_CODES) addTo(metrics.verdicts, { ...main, verdict }, m.verdicts[verdict]);
  observeAll(metrics.waitDuration, main, m.waitSeconds);
  observeAll(metrics.timeInQueue, main, m.timeInQueueSeconds);
  for (const kind of RUN_KINDS) {
    addTo(metrics.testingSlotsActive, labels(kind), m.runsInFlight[kind]);
    observeAll(metrics.testDuration, labels(kind), m.testSeconds[kind]);
  }
}

function labelsOf(queue: QueueDoc): (queueType: string) => QueueLabels {
  return (queueType) => ({ repo: repoFullName(queue.repo), branch: queue.branch, queue_type: queueType });
}

/** `inc` rather than `set`: queues with the same labels add up, and `inc` by 0 still writes the series. */
function addTo<T extends string>(gauge: Gauge<T>, labels: Record<T, string>, value: number): void {
  gauge.inc(labels, value);
}

function observeAll(histogram: Histogram<QueueLabel>, labels: QueueLabels, values: number[]): void {
  for (const v of values) histogram.observe(labels, v);
}

import { Gauge, type Registry } from 'prom-client';
import type { QueueDoc } from '../domain/queue.js';

/** `mq_queue_storm`: 1 while the queue is in a storm (docs/queue-rules.md, "Storms"); else 0. */
export function defineStormMetric(registry: Registry, labelNames: readonly string[]) {
  return new Gauge({
    name: 'mq_queue_storm',
    help: 'Whether the queue is in a storm now: stormRuns runs ended within stormMinutes and nothing merged (getQueue storm names the cause).',
    labelNames: [...labelNames],
    registers: [registry],
  });
}

export function recordStorm(gauge: Gauge, labels: Record<string, string>, queue: QueueDoc): void {
  // `inc`: queues with the same labels add up, and a 0 still writes the series.
  gauge.inc(labels, queue.storm ? 1 : 0);
}

import { Gauge, type Registry } from 'prom-client';
import { mergeHold } from '../domain/merge-hold.js';
import type { QueueDoc } from '../domain/queue.js';

const HOLDS = ['freeze', 'window'] as const;

/** `mq_merge_held{hold}`: 1 while a freeze, or closed merge windows, hold the queue's merges; else 0. */
export function defineHoldMetric(registry: Registry, labelNames: readonly string[]) {
  return new Gauge({
    name: 'mq_merge_held',
    help: 'Whether the queue merges nothing now (urgent and named PRs excepted), by hold: freeze or window (outside its merge windows).',
    labelNames: [...labelNames, 'hold'],
    registers: [registry],
  });
}

export function recordHold(gauge: Gauge, labels: Record<string, string>, queue: QueueDoc, now: Date): void {
  const hold = mergeHold(queue, now);
  // `inc`: queues with the same labels add up, and a 0 still writes the series.
  for (const h of HOLDS) gauge.inc({ ...labels, hold: h }, hold?.kind === h ? 1 : 0);
}

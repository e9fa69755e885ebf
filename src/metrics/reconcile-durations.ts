import type { QueueDoc } from '../domain/queue.js';
import { repoFullName } from '../domain/repo.js';

/** Seconds, 1-2-5 steps: a reconcile takes milliseconds when healthy, seconds when the queue is too big. */
export const RECONCILE_BUCKETS: readonly number[] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];

export const RECONCILE_METRIC = 'mq_reconcile_duration_seconds';

interface Tally {
  /** Per bucket (not cumulative); the last slot counts what is above the highest bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * The wall time of every reconcile this process ran, per queue, as a Prometheus histogram. Lives as
 * long as the process (unlike the `_1h` metrics, which are computed from the store at each scrape),
 * so it is a plain cumulative histogram: a fixed number of counters per queue, whatever the traffic.
 */
export class ReconcileDurations {
  private readonly tallies = new Map<string, Tally>();

  observe(queueId: string, seconds: number): void {
    let tally = this.tallies.get(queueId);
    if (!tally) {
      tally = { counts: new Array<number>(RECONCILE_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      this.tallies.set(queueId, tally);
    }
    const slot = RECONCILE_BUCKETS.findIndex((bound) => seconds <= bound);
    const index = slot === -1 ? RECONCILE_BUCKETS.length : slot;
    tally.counts[index] = (tally.counts[index] ?? 0) + 1;
    tally.sum += seconds;
    tally.count += 1;
  }

  /**
   * The exposition text (format 0.0.4) of these queues' histograms, every queue written (at zero when
   * it has not reconciled yet). Queues that share their labels are added together, as in the other metrics.
   */
  render(queues: readonly QueueDoc[]): string {
    if (queues.length === 0) return '';
    const merged = new Map<string, Tally>();
    for (const queue of queues) {
      const labels = `repo="${escapeLabel(repoFullName(queue.repo))}",branch="${escapeLabel(queue.branch)}",queue_type="main"`;
      const into = merged.get(labels) ?? { counts: new Array<number>(RECONCILE_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      const tally = this.tallies.get(queue.id);
      if (tally) {
        tally.counts.forEach((n, i) => (into.counts[i] = (into.counts[i] ?? 0) + n));
        into.sum += tally.sum;
        into.count += tally.count;
      }
      merged.set(labels, into);
    }
    const lines = [
      `# HELP ${RECONCILE_METRIC} Wall time of each reconcile of the queue (load, plan, commit, side effects) since this process started.`,
      `# TYPE ${RECONCILE_METRIC} histogram`,
    ];
    for (const [labels, tally] of merged) {
      let cumulative = 0;
      RECONCILE_BUCKETS.forEach((bound, i) => {
        cumulative += tally.counts[i] ?? 0;
        lines.push(`${RECONCILE_METRIC}_bucket{${labels},le="${bound}"} ${cumulative}`);
      });
      lines.push(`${RECONCILE_METRIC}_bucket{${labels},le="+Inf"} ${tally.count}`);
      lines.push(`${RECONCILE_METRIC}_sum{${labels}} ${tally.sum}`);
      lines.push(`${RECONCILE_METRIC}_count{${labels}} ${tally.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

import { ciHistoryOf, estimateMergeTimes, type MergeEstimate } from '../domain/eta.js';
import type { QueueDoc } from '../domain/queue.js';
import type { QueueStore } from '../store/store.js';

/** Runs older than this say little about the next ones. */
const HISTORY_WINDOW_MS = 24 * 3_600_000;

/** How long the estimates of one queue document are reused: an ETA is not read to the second. */
const ESTIMATE_REUSE_MS = 1_000;

/** The ETA of every active entry of a queue, from its runs in the document and the archived ones of the last day. */
export async function loadMergeEstimates(store: Pick<QueueStore, 'archivedRuns'>, queue: QueueDoc, now: Date): Promise<Map<string, MergeEstimate>> {
  if (!queue.entries.length) return new Map();
  // A paused queue estimates nothing from its history: no need to read it.
  if (queue.state === 'paused' || queue.state === 'switching_modes') return estimateMergeTimes(queue, ciHistoryOf([]), now);
  const archived = await store.archivedRuns(queue.id, { finishedSince: new Date(now.getTime() - HISTORY_WINDOW_MS).toISOString() });
  return estimateMergeTimes(queue, ciHistoryOf([...queue.runs, ...archived], { lanes: queue.settings.mode === 'parallel' }), now);
}

/**
 * `loadMergeEstimates` with the estimates of a document kept for `ESTIMATE_REUSE_MS` of the caller's
 * clock: readers of a deep queue (getQueue pages, status reports of many PRs of one commit) would
 * otherwise walk the whole queue and read its run history once per request. Documents are never
 * changed in place, so a new version always gets new estimates.
 */
export class MergeEstimates {
  private readonly kept = new WeakMap<QueueDoc, { atMs: number; estimates: Promise<ReadonlyMap<string, MergeEstimate>> }>();

  constructor(private readonly store: Pick<QueueStore, 'archivedRuns'>) {}

  of(queue: QueueDoc, now: Date): Promise<ReadonlyMap<string, MergeEstimate>> {
    const nowMs = now.getTime();
    const kept = this.kept.get(queue);
    if (kept && nowMs >= kept.atMs && nowMs - kept.atMs < ESTIMATE_REUSE_MS) return kept.estimates;
    const estimates = loadMergeEstimates(this.store, queue, now);
    this.kept.set(queue, { atMs: nowMs, estimates });
    estimates.catch(() => {
      if (this.kept.get(queue)?.estimates === estimates) this.kept.delete(queue);
    });
    return estimates;
  }
}

import { ciHistoryOf, estimateMergeTimes, type MergeEstimate } from '../domain/eta.js';
import type { QueueDoc } from '../domain/queue.js';
import type { Store } from '../store/store.js';

/** Runs older than this say little about the next ones. */
const HISTORY_WINDOW_MS = 24 * 3_600_000;

/** The ETA of every active entry of a queue, from its runs in the document and the archived ones of the last day. */
export async function loadMergeEstimates(store: Pick<Store, 'archivedRuns'>, queue: QueueDoc, now: Date): Promise<Map<string, MergeEstimate>> {
  if (!queue.entries.length) return new Map();
  // A paused queue estimates nothing from its history: no need to read it.
  if (queue.state === 'paused' || queue.state === 'switching_modes') return estimateMergeTimes(queue, ciHistoryOf([]), now);
  const archived = await store.archivedRuns(queue.id, { finishedSince: new Date(now.getTime() - HISTORY_WINDOW_MS).toISOString() });
  return estimateMergeTimes(queue, ciHistoryOf([...queue.runs, ...archived]), now);
}

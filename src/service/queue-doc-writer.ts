import type { QueueDoc } from '../domain/queue.js';
import { KeyedLock } from '../engine/keyed-lock.js';
import { QueueCommitter, type QueueChange } from '../engine/queue-committer.js';
import type { Store } from '../store/store.js';
import { notFound } from './errors.js';
import { queueErrors } from './queue-errors.js';

export type { QueueChange } from '../engine/queue-committer.js';

/** Compare-and-set conflicts in a row (with the engine or another replica) before giving up. */
const MAX_CONFLICTS = 9;

export interface QueueKey {
  repoKey: string;
  branch: string;
}

/**
 * The service's writes of queue documents: one at a time per queue in this process (the per-queue
 * lock), each through the engine's compare-and-set loop (QueueCommitter), so a change is always
 * decided on the document it is written over. A change that throws writes nothing.
 */
export class QueueDocWriter {
  private readonly lock = new KeyedLock();
  private readonly committer: QueueCommitter;

  /** `now`: the time of the outbound events of each commit. */
  constructor(
    private readonly store: Store,
    now: () => Date = () => new Date(),
  ) {
    this.committer = new QueueCommitter(store, now);
  }

  async update<T>(
    key: QueueKey,
    change: (queue: QueueDoc) => QueueChange<T> | Promise<QueueChange<T>>,
    /** The document the caller read already: the first attempt is made on it (a stale one fails its compare-and-set). */
    known?: QueueDoc,
  ): Promise<{ queue: QueueDoc; result: T; changed: boolean }> {
    const committed = await this.lock.run(lockKey(key), () =>
      this.committer.update(known ?? null, () => this.store.getQueue(key.repoKey, key.branch), change, {
        archive: false,
        confirmUnchanged: true,
        maxConflicts: MAX_CONFLICTS,
        tooBusy: () => queueErrors.busy(key.branch),
      }),
    );
    if (!committed) throw notFound.queue(key.branch);
    return { queue: committed.queue, result: committed.result, changed: committed.changed };
  }

  /** Deletes the queue when `mayDelete` allows it (it throws otherwise); false when there is none. */
  async delete(key: QueueKey, mayDelete: (queue: QueueDoc) => void): Promise<{ deleted: boolean; queueId: string | null }> {
    const deleted = await this.lock.run(lockKey(key), () =>
      this.committer.delete(() => this.store.getQueue(key.repoKey, key.branch), mayDelete, {
        maxConflicts: MAX_CONFLICTS,
        tooBusy: () => queueErrors.busy(key.branch),
      }),
    );
    return { deleted: deleted !== null, queueId: deleted?.id ?? null };
  }
}

function lockKey(key: QueueKey): string {
  return `${key.repoKey}\u0000${key.branch}`;
}

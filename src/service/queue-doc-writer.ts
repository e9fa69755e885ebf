import type { QueueDoc } from '../domain/queue.js';
import type { Store } from '../store/store.js';
import { notFound } from './errors.js';
import { KeyedLock } from '../engine/keyed-lock.js';
import { queueErrors } from './queue-errors.js';

/** Compare-and-set conflicts in a row (with the engine or another replica) before giving up. */
const MAX_ATTEMPTS = 10;

export interface QueueKey {
  repoKey: string;
  branch: string;
}

/** What a change decided: a new document to commit, or nothing to write. */
export type QueueChange<T> = { queue: QueueDoc; result: T } | { unchanged: true; result: T };

/**
 * Writes queue documents with compare-and-set. On a version conflict (the engine or another replica
 * committed first) the change is applied again to the reloaded document, so it is always decided on
 * the document it is written over. A change that throws writes nothing.
 */
export class QueueDocWriter {
  private readonly lock = new KeyedLock();

  constructor(private readonly store: Store) {}

  update<T>(
    key: QueueKey,
    change: (queue: QueueDoc) => QueueChange<T> | Promise<QueueChange<T>>,
  ): Promise<{ queue: QueueDoc; result: T; changed: boolean }> {
    return this.lock.run(lockKey(key), async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await this.store.getQueue(key.repoKey, key.branch);
        if (!current) throw notFound.queue(key.branch);
        const decided = await change(current);
        if ('unchanged' in decided) return { queue: current, result: decided.result, changed: false };
        const next: QueueDoc = { ...decided.queue, version: current.version + 1 };
        if (await this.store.commitQueue(next, current.version)) return { queue: next, result: decided.result, changed: true };
      }
      throw queueErrors.busy(key.branch);
    });
  }

  /** Deletes the queue when `mayDelete` allows it (it throws otherwise); false when there is none. */
  delete(key: QueueKey, mayDelete: (queue: QueueDoc) => void): Promise<{ deleted: boolean; queueId: string | null }> {
    return this.lock.run(lockKey(key), async () => {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const current = await this.store.getQueue(key.repoKey, key.branch);
        if (!current) return { deleted: false, queueId: null };
        mayDelete(current);
        if (await this.store.deleteQueue(current.id, current.version)) return { deleted: true, queueId: current.id };
      }
      throw queueErrors.busy(key.branch);
    });
  }
}

function lockKey(key: QueueKey): string {
  return `${key.repoKey}\u0000${key.branch}`;
}

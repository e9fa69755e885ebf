import { AppendScope, appendingInPlace } from '../../domain/appended-arrays.js';
import type { QueueDoc } from '../../domain/queue.js';
import { KeyedLock } from '../../queue-docs/keyed-lock.js';
import { QueueCommitter, type QueueChange } from '../../queue-docs/queue-committer.js';
import type { QueueStore } from '../../store/store.js';
import { notFound } from '../errors.js';
import { queueErrors } from './queue-errors.js';

export type { QueueChange } from '../../queue-docs/queue-committer.js';

/** Changes stored in one commit at most: a batch of a busy queue stays quick to apply and to write. */
const MAX_BATCH = 64;

export interface QueueKey {
  repoKey: string;
  branch: string;
}

/** One caller's change waiting in a batch, and how to answer it. */
interface Waiting {
  change: (queue: QueueDoc) => QueueChange<unknown> | Promise<QueueChange<unknown>>;
  known: QueueDoc | undefined;
  resolve: (answer: { queue: QueueDoc; result: unknown; changed: boolean }) => void;
  reject: (err: unknown) => void;
}

/** What one change did when the batch applied it: its result, or what it threw (it then wrote nothing). */
type Outcome = { result: unknown; changed: boolean } | { error: unknown };

/**
 * The service's writes of queue documents, through the engine's compare-and-set loop
 * (QueueCommitter), so a change is always decided on the document it is written over. A change that
 * throws writes nothing.
 *
 * Group commit: the writes to one queue that arrive in one turn of the event loop (the requests whose
 * bytes came in together), and those that come while the queue's lock is held, form a batch (up to
 * MAX_BATCH), applied one after another in arrival order on one document and stored in one commit.
 * Batches of a queue are committed one at a time (the per-queue lock), and a change that throws
 * fails only its own caller. Every caller of a batch is answered with the document as stored, which
 * holds the changes of the whole batch.
 */
export class QueueDocWriter {
  private readonly lock = new KeyedLock();
  private readonly committer: QueueCommitter;
  /** The batch of each queue still taking changes (until it starts). */
  private readonly forming = new Map<string, Waiting[]>();

  /** `now`: the time of the outbound events of each commit. */
  constructor(
    private readonly store: { queues: QueueStore },
    now: () => Date = () => new Date(),
  ) {
    this.committer = new QueueCommitter(store.queues, now);
  }

  update<T>(
    key: QueueKey,
    change: (queue: QueueDoc) => QueueChange<T> | Promise<QueueChange<T>>,
    /** The document the caller read already: a batch is first tried on it (a stale one fails its compare-and-set). */
    known?: QueueDoc,
  ): Promise<{ queue: QueueDoc; result: T; changed: boolean }> {
    return new Promise((resolve, reject) => {
      const id = lockKey(key);
      let batch = this.forming.get(id);
      if (!batch || batch.length >= MAX_BATCH) {
        const forming: Waiting[] = [];
        this.forming.set(id, (batch = forming));
        // Joined until it starts: at the end of this turn, or later when the queue's lock is busy.
        setImmediate(() =>
          void this.lock.run(id, () => {
            if (this.forming.get(id) === forming) this.forming.delete(id);
            return this.commitBatch(key, forming);
          }),
        );
      }
      batch.push({ change, known, resolve: resolve as Waiting['resolve'], reject });
    });
  }

  /** Applies a batch's changes in order and commits them once; answers every caller. */
  private async commitBatch(key: QueueKey, batch: Waiting[]): Promise<void> {
    let committed;
    try {
      committed = await this.committer.update(
        batch[0]!.known ?? null,
        () => this.store.queues.getQueue(key.repoKey, key.branch),
        async (base) => (await applyBatch(batch, base, new AppendScope())) ?? (await applyBatch(batch, base, null))!,
        { archive: false, confirmUnchanged: true, tooBusy: () => queueErrors.busy(key.branch) },
      );
    } catch (err) {
      for (const waiting of batch) waiting.reject(err);
      return;
    }
    if (!committed) {
      for (const waiting of batch) waiting.reject(notFound.queue(key.repoKey, key.branch));
      return;
    }
    committed.result.forEach((outcome, i) => {
      const waiting = batch[i]!;
      if ('error' in outcome) waiting.reject(outcome.error);
      else waiting.resolve({ queue: committed.queue, result: outcome.result, changed: outcome.changed });
    });
  }

  /** Deletes the queue when `mayDelete` allows it (it throws otherwise); false when there is none. */
  async delete(key: QueueKey, mayDelete: (queue: QueueDoc) => void): Promise<{ deleted: boolean; queueId: string | null }> {
    const deleted = await this.lock.run(lockKey(key), () =>
      this.committer.delete(() => this.store.queues.getQueue(key.repoKey, key.branch), mayDelete, {
        tooBusy: () => queueErrors.busy(key.branch),
      }),
    );
    return { deleted: deleted !== null, queueId: deleted?.id ?? null };
  }
}

/**
 * The batch's changes applied in order to `base`. With a scope, the arrays the batch makes are
 * appended to in place (appended-arrays.ts), which changes the document a change was given. That is
 * sound only when the change returns a document holding every array it appended to; otherwise (it
 * threw, wrote nothing, or built its answer from the document it was given) the batch is given up
 * (null) and applied again with copies.
 */
async function applyBatch(batch: readonly Waiting[], base: QueueDoc, scope: AppendScope | null): Promise<QueueChange<Outcome[]> | null> {
  let queue = base;
  const outcomes: Outcome[] = [];
  for (const waiting of batch) {
    scope?.inPlace.clear();
    try {
      const decided = await (scope ? appendingInPlace(scope, () => waiting.change(queue)) : waiting.change(queue));
      if ('unchanged' in decided) {
        if (scope && scope.inPlace.size > 0) return null;
        outcomes.push({ result: decided.result, changed: false });
      } else {
        if (scope && !holdsAll(decided.queue, scope.inPlace)) return null;
        queue = decided.queue;
        outcomes.push({ result: decided.result, changed: true });
      }
    } catch (err) {
      if (scope && scope.inPlace.size > 0) return null;
      outcomes.push({ error: err });
    }
  }
  return queue === base ? { unchanged: true as const, result: outcomes } : { queue, result: outcomes };
}

function holdsAll(queue: QueueDoc, arrays: ReadonlySet<readonly unknown[]>): boolean {
  const held: readonly unknown[] = Object.values(queue);
  for (const a of arrays) if (!held.includes(a)) return false;
  return true;
}

function lockKey(key: QueueKey): string {
  return `${key.repoKey}\u0000${key.branch}`;
}

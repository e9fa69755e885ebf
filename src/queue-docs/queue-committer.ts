import type { QueueDoc } from '../domain/queue.js';
import { withVerdicts } from '../domain/verdict/attach.js';
import { queueEvents } from '../events/queue-events.js';
import { archivable, owesAnyFinalReport } from '../planner/index.js';
import type { Archive, QueueStore } from '../store/store.js';

/** What a change decided: a new document to commit, or nothing to write. */
export type QueueChange<T> = { queue: QueueDoc; result: T } | { unchanged: true; result: T };

export interface Committed<T> {
  /** The document as stored (what was archived moved out), or the current one when nothing changed. */
  queue: QueueDoc;
  /** The document the change made, before anything was archived (ended entries still in it). */
  changedTo: QueueDoc;
  result: T;
  changed: boolean;
}

/**
 * Compare-and-set conflicts in a row before a write gives up (`tooBusy()`), the same for every writer:
 * the engine's reconciles and facts and the service's writes (which answer 503 `queue_busy`). Each
 * try is one read and one write of the document; 20 lost in a row means the queue is written by
 * something that will not stop, not by a busy neighbour.
 */
export const MAX_COMMIT_CONFLICTS = 20;

export interface CommitOptions {
  /** Move ended entries and finished runs out of the document into the archive (the engine's commits). */
  archive: boolean;
  /** The error when MAX_COMMIT_CONFLICTS were lost in a row. */
  tooBusy: () => Error;
  /**
   * "Nothing to write" decided on the document the caller passed (not one loaded here) holds only if
   * that is still the stored one: check it (the service's writes on a document read before the lock).
   */
  confirmUnchanged?: boolean;
  /** Called after each successful commit with the document before and after the change. */
  onCommitted?: (prev: QueueDoc, next: QueueDoc) => void;
}

/**
 * The one compare-and-set loop for queue documents, shared by the engine and the service: a change
 * (or a deletion) is applied to the current document and committed over its version; on a conflict
 * (another writer, in this process or another replica, committed first) the document is reloaded and
 * the change applied again, so it is always decided on the document it is written over. A change
 * that throws writes nothing.
 */
export class QueueCommitter {
  /** `now`: the time of the outbound events each commit writes to the outbox. */
  constructor(
    private readonly store: Pick<QueueStore, 'commitQueue' | 'deleteQueue'>,
    private readonly now: () => Date,
  ) {}

  /**
   * Applies `change` to `current` (or to what `reload` finds when null) and commits it, reloading on
   * conflicts. Null when the queue is gone.
   */
  update<T>(
    current: QueueDoc | null,
    reload: () => Promise<QueueDoc | null>,
    change: (queue: QueueDoc) => QueueChange<T> | Promise<QueueChange<T>>,
    options: CommitOptions,
  ): Promise<Committed<T> | null> {
    return this.untilStored(current, reload, options, async (base) => {
      const decided = await change(base);
      if ('unchanged' in decided) {
        if (options.confirmUnchanged && base === current && (await reload())?.version !== base.version) return null;
        return { queue: base, changedTo: base, result: decided.result, changed: false };
      }
      // Each removal or restart is given its verdict here, from the document that made it (its runs not yet archived).
      const changedTo = withVerdicts(base, decided.queue);
      const stored = await this.commit(base, changedTo, options);
      return stored && { queue: stored, changedTo, result: decided.result, changed: true };
    });
  }

  /**
   * Deletes the queue when `mayDelete` allows it (it throws otherwise), at the version it was
   * decided on. Null when the queue is gone.
   */
  delete(
    reload: () => Promise<QueueDoc | null>,
    mayDelete: (queue: QueueDoc) => void,
    options: Pick<CommitOptions, 'tooBusy'>,
  ): Promise<QueueDoc | null> {
    return this.untilStored(null, reload, options, async (base) => {
      mayDelete(base);
      return (await this.store.deleteQueue(base.id, base.version, queueEvents(base, null, this.now().toISOString()))) ? base : null;
    });
  }

  /** The loop: `attempt` on the latest document until it lands (non-null), reloading after each conflict. */
  private async untilStored<R>(
    current: QueueDoc | null,
    reload: () => Promise<QueueDoc | null>,
    options: Pick<CommitOptions, 'tooBusy'>,
    attempt: (base: QueueDoc) => Promise<R | null>,
  ): Promise<R | null> {
    let base = current ?? (await reload());
    for (let conflicts = 0; base; conflicts++) {
      if (conflicts > MAX_COMMIT_CONFLICTS) throw options.tooBusy();
      const landed = await attempt(base);
      if (landed !== null) return landed;
      base = await reload();
    }
    return null;
  }

  /**
   * One compare-and-set of `next` over `prev`; null on a version conflict. This is the one place
   * where every write of a queue document passes with both its documents in hand, so it is where the
   * outbound events of the change are written, in the same store commit.
   */
  private async commit(prev: QueueDoc, next: QueueDoc, options: CommitOptions): Promise<QueueDoc | null> {
    const { stored, archive } = options.archive ? withoutArchivable(next) : { stored: next, archive: undefined };
    const versioned: QueueDoc = { ...stored, version: prev.version + 1 };
    const events = queueEvents(prev, { ...next, version: versioned.version }, this.now().toISOString());
    const extras: Archive | undefined = events.length > 0 ? { ...archive, events } : archive;
    if (!(await this.store.commitQueue(versioned, prev.version, extras))) return null;
    options.onCommitted?.(prev, next);
    return versioned;
  }
}

/** `next` without the ended entries (their PRs told how they ended) and finished runs it no longer needs, and those as an archive. */
function withoutArchivable(next: QueueDoc): { stored: QueueDoc; archive: Archive | undefined } {
  const found = archivable(next);
  // An ended entry whose PR is still owed its final word stays until it is said (a restart says it).
  const old = { entries: found.entries.filter((e) => !owesAnyFinalReport(e)), runs: found.runs };
  if (old.entries.length === 0 && old.runs.length === 0) return { stored: next, archive: undefined };
  const entryIds = new Set(old.entries.map((e) => e.id));
  const runIds = new Set(old.runs.map((r) => r.id));
  return {
    stored: { ...next, entries: next.entries.filter((e) => !entryIds.has(e.id)), runs: next.runs.filter((r) => !runIds.has(r.id)) },
    archive: { entries: old.entries, runs: old.runs },
  };
}

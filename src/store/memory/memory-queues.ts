import type { Entry } from '../../domain/entry.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { TestRun } from '../../domain/run.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { ConflictError } from '../errors.js';
import { deepFreeze } from '../queue-rows.js';
import type { Archive, QueueStore, RunFilter } from '../store.js';
import type { MemoryOutbox } from './memory-outbox.js';

/**
 * Queues and their archive in memory. Queue documents, archived entries and runs are kept frozen and
 * handed out shared, as the other adapters hand out queues, since a copy per read made long
 * simulations slow.
 */
export class MemoryQueues implements QueueStore {
  private readonly queues = new Map<string, QueueDoc>();
  private readonly entries = new Map<string, Entry>();
  private readonly runs = new Map<string, TestRun>();

  constructor(private readonly outbox: Pick<MemoryOutbox, 'insertEvents'>) {}

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    if ([...this.queues.values()].some((q) => q.repoKey === queue.repoKey && q.branch === queue.branch)) {
      throw new ConflictError(`a queue exists for ${queue.repoKey} ${queue.branch}`);
    }
    this.queues.set(queue.id, deepFreeze(structuredClone(queue)));
    this.outbox.insertEvents(events);
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return [...this.queues.values()].find((q) => q.repoKey === repoKey && q.branch === branch) ?? null;
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return this.queues.get(id) ?? null;
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    return [...this.queues.values()].filter(
      (q) => (filter.orgId === undefined || q.orgId === filter.orgId) && (filter.repoKey === undefined || q.repoKey === filter.repoKey),
    );
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) throw new Error(`version must be ${expectedVersion + 1}, not ${queue.version}`);
    const current = this.queues.get(queue.id);
    if (!current || current.version !== expectedVersion) return false;
    for (const e of archive?.entries ?? []) this.entries.set(e.id, deepFreeze(e));
    for (const r of archive?.runs ?? []) this.runs.set(r.id, deepFreeze(r));
    this.queues.set(queue.id, freezeOver(current, queue));
    this.outbox.insertEvents(archive?.events);
    return true;
  }

  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    if (this.queues.get(id)?.version !== expectedVersion) return false;
    this.outbox.insertEvents(events);
    return this.queues.delete(id);
  }

  async latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    let latest: Entry | null = null;
    for (const e of this.entries.values()) if (e.queueId === queueId && e.prNumber === prNumber && (!latest || e.seq > latest.seq)) latest = e;
    return latest;
  }

  async archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    const ids = new Set(queueIds);
    return [...this.entries.values()].filter((e) => ids.has(e.queueId) && e.stateChangedAt >= since);
  }

  async archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    return [...this.runs.values()]
      .filter(
        (r) =>
          r.queueId === queueId &&
          (filter.runId === undefined || r.id === filter.runId) &&
          (filter.prNumber === undefined || r.prs.some((p) => p.prNumber === filter.prNumber)) &&
          (filter.finishedSince === undefined || (r.finishedAt !== null && r.finishedAt >= filter.finishedSince)),
      )
      .sort(newestFirst);
  }

  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    let entries = 0;
    let runs = 0;
    for (const [id, e] of this.entries) if (e.stateChangedAt < endedBefore && this.entries.delete(id)) entries++;
    for (const [id, r] of this.runs) if ((r.finishedAt ?? r.createdAt) < endedBefore && this.runs.delete(id)) runs++;
    return { entries, runs };
  }
}

/** As the SQL adapters order runs: finishedAt descending (unfinished last), createdAt descending, id. */
function newestFirst(a: TestRun, b: TestRun): number {
  if (a.finishedAt !== b.finishedAt) return a.finishedAt === null ? 1 : b.finishedAt === null ? -1 : a.finishedAt < b.finishedAt ? 1 : -1;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Freezes `next`, skipping the items it shares with `prev` at the same place (frozen already). */
function freezeOver(prev: QueueDoc, next: QueueDoc): QueueDoc {
  const freezeItems = <T>(items: readonly T[], old: readonly T[]) => {
    if (Object.isFrozen(items)) return;
    Object.freeze(items);
    for (let i = 0; i < items.length; i++) if (items[i] !== old[i]) deepFreeze(items[i]);
  };
  freezeItems(next.entries, prev.entries);
  freezeItems(next.runs, prev.runs);
  freezeItems(next.units, prev.units);
  return deepFreeze(next);
}

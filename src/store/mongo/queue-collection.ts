import type { Collection, Db, Filter, UpdateFilter } from 'mongodb';
import type { Entry } from '../../domain/entry.js';
import type { QueueDoc, Unit } from '../../domain/queue.js';
import type { TestRun } from '../../domain/run.js';
import { changeSnapshot, headOf, snapshotOf, type QueueHead, type QueueSnapshot, type RowChanges } from '../queue-rows.js';
import type { Archive, RunFilter } from '../store.js';
import { conflictOnDuplicate, findMany, upsertAll } from './collection-ops.js';
import { commitPipeline, PENDING_EVENTS, QUEUE_PROJECTION, type MongoOutbox } from './outbox-collection.js';
import type { OutboxEvent } from '../../events/event-types.js';

/** A row of a queue document: the entry or run and its position in the document's array. */
interface Slot<T> {
  o: number;
  d: T;
}

/**
 * One MongoDB document per queue, its entries, runs and units kept as maps by id, so a commit is one
 * `updateOne` under the version filter that `$set`s and `$unset`s the changed keys (see
 * queue-rows.ts). Documents written before (`entries` an array) are read as they are and rewritten
 * whole by their next commit. A commit's outbound events ride in the same update (outbox-collection.ts).
 */
interface StoredQueue {
  id: string;
  repoKey: string;
  branch: string;
  orgId: string;
  version: number;
  head?: QueueHead;
  entries: Record<string, Slot<Entry>> | Entry[];
  runs: Record<string, Slot<TestRun>> | TestRun[];
  /** Absent in documents written before. */
  units?: Record<string, Slot<Unit>>;
  /** Outbound events of commits not yet moved to the outbox (never read with the queue). */
  pendingEvents?: OutboxEvent[];
}

export class MongoQueueCollections {
  private readonly queues: Collection<StoredQueue>;
  private readonly entries: Collection<Entry>;
  private readonly runs: Collection<TestRun>;
  private readonly snapshots = new Map<string, QueueSnapshot>();

  constructor(
    db: Db,
    private readonly outbox: Pick<MongoOutbox, 'movePending' | 'insertEvents'>,
  ) {
    this.queues = db.collection('queues');
    this.entries = db.collection('archived_entries');
    this.runs = db.collection('archived_runs');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.queues.createIndexes([{ key: { id: 1 }, unique: true }, { key: { repoKey: 1, branch: 1 }, unique: true }, { key: { orgId: 1 } }]),
      this.entries.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { queueId: 1, prNumber: 1, seq: -1 } },
        { key: { queueId: 1, stateChangedAt: 1 } },
      ]),
      this.runs.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { queueId: 1, finishedAt: -1 } },
        { key: { queueId: 1, 'prs.prNumber': 1 } },
      ]),
    ]);
  }

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    await conflictOnDuplicate(`a queue exists for ${queue.repoKey} ${queue.branch}`, () =>
      this.queues.insertOne({ ...stored(queue), [PENDING_EVENTS]: events ?? [] }),
    );
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return this.current({ repoKey, branch });
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return this.current({ id });
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    const query: Filter<StoredQueue> = {};
    if (filter.orgId !== undefined) query.orgId = filter.orgId;
    if (filter.repoKey !== undefined) query.repoKey = filter.repoKey;
    const versions = await this.queues.find(query, { projection: { _id: 0, id: 1, version: 1 }, sort: { repoKey: 1, branch: 1 } }).toArray();
    const queues: QueueDoc[] = [];
    for (const v of versions) {
      const queue = await this.current({ id: v.id }, v.version);
      if (queue) queues.push(queue);
    }
    return queues;
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) {
      throw new Error(`commitQueue: queue.version must be ${expectedVersion + 1}, got ${queue.version}`);
    }
    await upsertAll(this.entries, archive?.entries ?? []);
    await upsertAll(this.runs, archive?.runs ?? []);
    const events = archive?.events ?? [];
    let snapshot = this.snapshots.get(queue.id);
    if (snapshot?.doc.version !== expectedVersion) {
      const raw = await this.queues.findOne({ id: queue.id }, { projection: QUEUE_PROJECTION });
      if (!raw || raw.version !== expectedVersion) return false;
      if (Array.isArray(raw.entries) || Array.isArray(raw.runs) || !raw.head || !safeKeys(queue)) return this.replace(queue, expectedVersion, events);
      snapshot = this.keep(raw);
    }
    if (!safeKeys(queue)) return this.replace(queue, expectedVersion, events);
    this.snapshots.delete(queue.id);
    const changes = changeSnapshot(snapshot, queue);
    const set: Record<string, unknown> = { version: queue.version };
    const unset: Record<string, ''> = {};
    if (changes.head) set.head = changes.head;
    addChanges('entries', changes.entries, set, unset);
    addChanges('runs', changes.runs, set, unset);
    addChanges('units', changes.units, set, unset);
    const update: UpdateFilter<StoredQueue> = { $set: set };
    if (Object.keys(unset).length > 0) update.$unset = unset;
    if (events.length > 0) update.$push = { [PENDING_EVENTS]: { $each: events } } as UpdateFilter<StoredQueue>['$push'];
    const result = await this.queues.updateOne({ id: queue.id, version: expectedVersion }, update);
    if (result.matchedCount !== 1) return false;
    this.snapshots.set(queue.id, snapshot);
    return true;
  }

  /**
   * The events the document still carries are moved out first; the deletion's own events are stored
   * before the compare-and-set, marked to be sent only once the queue is gone (outbox-collection.ts).
   */
  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    this.snapshots.delete(id);
    await this.outbox.movePending(id);
    await this.outbox.insertEvents(events, { requiresQueueGone: id });
    const result = await this.queues.deleteOne({ id, version: expectedVersion, [`${PENDING_EVENTS}.0`]: { $exists: false } });
    return result.deletedCount === 1;
  }

  async latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    const [latest] = await findMany(this.entries, { queueId, prNumber }, { seq: -1 }, 1);
    return latest ?? null;
  }

  async archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    if (queueIds.length === 0) return [];
    return findMany(this.entries, { queueId: { $in: queueIds }, stateChangedAt: { $gte: since } }, { stateChangedAt: 1, queueId: 1, seq: 1 });
  }

  async archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    const query: Filter<TestRun> = { queueId };
    if (filter.runId !== undefined) query.id = filter.runId;
    if (filter.prNumber !== undefined) query['prs.prNumber'] = filter.prNumber;
    if (filter.finishedSince !== undefined) query.finishedAt = { $gte: filter.finishedSince };
    // Same order as SQLite: a null finishedAt sorts last when descending.
    return findMany(this.runs, query, { finishedAt: -1, createdAt: -1, id: 1 });
  }

  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    const entries = await this.entries.deleteMany({ stateChangedAt: { $lt: endedBefore } });
    const runs = await this.runs.deleteMany({
      $or: [{ finishedAt: { $lt: endedBefore } }, { finishedAt: null, createdAt: { $lt: endedBefore } }],
    });
    return { entries: entries.deletedCount, runs: runs.deletedCount };
  }

  /** The stored queue: the kept snapshot when its version is the stored one, else loaded. */
  private async current(filter: Filter<StoredQueue>, knownVersion?: number): Promise<QueueDoc | null> {
    if (knownVersion === undefined) {
      const v = await this.queues.findOne(filter, { projection: { _id: 0, id: 1, version: 1 } });
      if (!v) return null;
      return this.current({ id: v.id }, v.version);
    }
    const kept = this.snapshots.get(filter.id as string);
    if (kept?.doc.version === knownVersion) return kept.doc;
    const raw = await this.queues.findOne(filter, { projection: QUEUE_PROJECTION });
    return raw ? this.keep(raw).doc : null;
  }

  private keep(raw: StoredQueue): QueueSnapshot {
    const snapshot =
      Array.isArray(raw.entries) || Array.isArray(raw.runs) || !raw.head
        ? legacySnapshot(raw)
        : snapshotOf(raw.head, raw.version, { entries: slots(raw.entries), runs: slots(raw.runs), units: slots(raw.units ?? {}) });
    this.snapshots.set(raw.id, snapshot);
    return snapshot;
  }

  /** Writes the whole document (the first commit over one stored before, or ids unsafe as keys). */
  private async replace(queue: QueueDoc, expectedVersion: number, events: readonly OutboxEvent[]): Promise<boolean> {
    this.snapshots.delete(queue.id);
    const result = await this.queues.updateOne({ id: queue.id, version: expectedVersion }, commitPipeline(stored(queue), events));
    return result.matchedCount === 1;
  }
}

function stored(queue: QueueDoc): StoredQueue {
  const map = <T extends { id: string }>(items: readonly T[]) => Object.fromEntries(items.map((d, o) => [d.id, { o, d }]));
  return {
    id: queue.id,
    repoKey: queue.repoKey,
    branch: queue.branch,
    orgId: queue.orgId,
    version: queue.version,
    head: headOf(queue),
    entries: map(queue.entries),
    runs: map(queue.runs),
    units: map(queue.units),
  };
}

function slots<T>(map: Record<string, Slot<T>> | T[]): { item: T; ord: number }[] {
  return Object.values(map as Record<string, Slot<T>>)
    .map((s) => ({ item: s.d, ord: s.o }))
    .sort((a, b) => a.ord - b.ord);
}

function legacySnapshot(raw: StoredQueue): QueueSnapshot {
  const legacy = raw as unknown as QueueDoc;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { entries, runs, units, version, ...head } = legacy;
  const positioned = <T>(items: readonly T[]) => items.map((item, ord) => ({ item, ord }));
  return snapshotOf(head, raw.version, { entries: positioned(entries), runs: positioned(runs), units: positioned(units) });
}

function addChanges<T extends { id: string }>(field: string, changes: RowChanges<T>, set: Record<string, unknown>, unset: Record<string, ''>): void {
  for (const { item, ord } of changes.upserts) set[`${field}.${item.id}`] = { o: ord, d: item };
  for (const { id, ord } of changes.moves) set[`${field}.${id}.o`] = ord;
  for (const id of changes.deletes) unset[`${field}.${id}`] = '';
}

/** Ids are used as field names: no dots, no leading `$` (the server makes UUIDs; this only guards). */
function safeKeys(queue: QueueDoc): boolean {
  const ok = (id: string) => id.length > 0 && !id.includes('.') && !id.startsWith('$');
  return queue.entries.every((e) => ok(e.id)) && queue.runs.every((r) => ok(r.id)) && queue.units.every((u) => ok(u.id));
}

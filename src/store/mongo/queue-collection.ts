import { randomUUID } from 'node:crypto';
import { BSON, type Collection, type Db, type Filter, type UpdateFilter } from 'mongodb';
import type { Entry } from '../../domain/entry.js';
import type { QueueDoc, Unit } from '../../domain/queue.js';
import type { TestRun } from '../../domain/run.js';
import { changeSnapshot, headOf, snapshotOf, type QueueHead, type QueueSnapshot } from '../queue-rows.js';
import type { Archive, QueueStore, RunFilter } from '../store.js';
import { conflictOnDuplicate, deleteInBatches, findMany } from './collection-ops.js';
import { confirmArchive, dropArchive, stageArchive } from './archive-writes.js';
import { COMMITS_KEPT, PENDING_EVENTS, type MongoOutbox } from './outbox-collection.js';
import { allRows, PageMap, type PageWrite, type QueuePage } from './queue-pages.js';
import type { OutboxEvent } from '../../events/event-types.js';

/** A row of a document written by an earlier version: the entry or run and its position. */
interface Slot<T> {
  o: number;
  d: T;
}

/**
 * One small MongoDB document per queue: its head, `version`, the ids of the pages holding its
 * entries, runs and units (queue-pages.ts), and the ids of its last commits (outbox-collection.ts).
 * A commit writes the new pages, stages its events, then makes one `updateOne` under the version
 * filter; the winner deletes the pages it replaced, the loser its own. Documents written by earlier
 * versions hold `entries`, `runs` and `units` themselves (as arrays or as maps by id): they are read
 * as they are and moved into pages by their next commit.
 */
interface StoredQueue {
  id: string;
  repoKey: string;
  branch: string;
  orgId: string;
  version: number;
  head?: QueueHead;
  pages?: string[];
  commits?: string[];
  entries?: Record<string, Slot<Entry>> | Entry[];
  runs?: Record<string, Slot<TestRun>> | TestRun[];
  units?: Record<string, Slot<Unit>>;
}

/** A queue as last read or committed here; `pages` null for a document of an earlier version. */
interface Loaded {
  snapshot: QueueSnapshot;
  pages: PageMap | null;
}

/** The compare-and-set update is refused above this (MongoDB's limit is 16 MiB, with room for the command). */
const MAX_UPDATE_BYTES = 12 * 1024 * 1024;
const HEAD_PROJECTION = { _id: 0, commits: 0, [PENDING_EVENTS]: 0 } as const;
/** A page not named by its queue this long after it was written was left by a stopped commit. */
const ORPHAN_AFTER_MS = 60 * 60_000;

export class MongoQueueCollections implements QueueStore {
  private readonly queues: Collection<StoredQueue>;
  private readonly pages: Collection<QueuePage>;
  private readonly entries: Collection<Entry>;
  private readonly runs: Collection<TestRun>;
  private readonly loaded = new Map<string, Loaded>();

  constructor(
    db: Db,
    private readonly outbox: Pick<MongoOutbox, 'movePending' | 'insertEvents' | 'keep' | 'stage' | 'confirm' | 'discard'>,
  ) {
    this.queues = db.collection('queues');
    this.pages = db.collection('queue_pages');
    this.entries = db.collection('archived_entries');
    this.runs = db.collection('archived_runs');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.queues.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { repoKey: 1, branch: 1 }, unique: true },
        { key: { orgId: 1, repoKey: 1, branch: 1 } },
      ]),
      this.pages.createIndexes([{ key: { queueId: 1, writtenAt: 1 } }]),
      this.entries.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { queueId: 1, prNumber: 1, seq: -1 } },
        { key: { queueId: 1, stateChangedAt: 1 } },
        { key: { stateChangedAt: 1 } },
        { key: { _commit: 1 }, sparse: true },
      ]),
      this.runs.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { queueId: 1, finishedAt: -1 } },
        { key: { queueId: 1, 'prs.prNumber': 1 } },
        { key: { finishedAt: 1, createdAt: 1 } },
        { key: { _commit: 1 }, sparse: true },
      ]),
    ]);
  }

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    const written = PageMap.of([]).change(allRows(queue), queue.id, randomUUID);
    const commitId = randomUUID();
    const kept = await this.stage(events, queue.id, commitId);
    await this.insertPages(written);
    const doc: StoredQueue = { ...identity(queue), head: headOf(queue), pages: written.pageIds, commits: [commitId] };
    try {
      await conflictOnDuplicate(`a queue exists for ${queue.repoKey} ${queue.branch}`, () => this.queues.insertOne(doc));
    } catch (err) {
      await this.undo(written, kept.length > 0 && commitId);
      throw err;
    }
    if (kept.length > 0) await this.outbox.confirm(commitId, kept);
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
      const queue = await this.current({ id: v.id }, v);
      if (queue) queues.push(queue);
    }
    return queues;
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) {
      throw new Error(`commitQueue: queue.version must be ${expectedVersion + 1}, got ${queue.version}`);
    }
    let loaded = this.loaded.get(queue.id);
    if (loaded?.snapshot.doc.version !== expectedVersion) {
      loaded = (await this.load({ id: queue.id })) ?? undefined;
      if (loaded?.snapshot.doc.version !== expectedVersion) return false;
    }
    this.loaded.delete(queue.id);
    const { snapshot, pages } = loaded;
    const commitId = randomUUID();
    let written: PageWrite;
    const set: Partial<StoredQueue> = { version: queue.version };
    const update: UpdateFilter<StoredQueue> = { $set: set, $push: { commits: { $each: [commitId], $slice: -COMMITS_KEPT } } };
    if (pages) {
      const changes = changeSnapshot(snapshot, queue);
      written = pages.change(changes, queue.id, randomUUID);
      if (changes.head) set.head = changes.head;
    } else {
      // Written by an earlier version: its events move out, its rows into pages.
      await this.outbox.movePending(queue.id);
      written = PageMap.of([]).change(allRows(queue), queue.id, randomUUID);
      set.head = headOf(queue);
      update.$unset = { entries: '', runs: '', units: '' };
    }
    set.pages = written.pageIds;
    const size = BSON.calculateObjectSize(update);
    if (size > MAX_UPDATE_BYTES) {
      throw new Error(`queue ${queue.repoKey} ${queue.branch}: the commit's update is ${(size / 2 ** 20).toFixed(1)} MiB, over the ${MAX_UPDATE_BYTES / 2 ** 20} MiB MongoDB is given`);
    }
    await stageArchive(this.entries, archive?.entries, commitId);
    await stageArchive(this.runs, archive?.runs, commitId);
    const kept = await this.stage(archive?.events, queue.id, commitId);
    await this.insertPages(written);
    const result = await this.queues.updateOne({ id: queue.id, version: expectedVersion }, update);
    if (result.matchedCount !== 1) {
      await this.undo(written, kept.length > 0 && commitId);
      await dropArchive(this.entries, archive?.entries, commitId);
      await dropArchive(this.runs, archive?.runs, commitId);
      return false;
    }
    await confirmArchive(this.entries, archive?.entries);
    await confirmArchive(this.runs, archive?.runs);
    if (written.replaced.length > 0) await this.pages.deleteMany({ _id: { $in: written.replaced } });
    if (kept.length > 0) await this.outbox.confirm(commitId, kept);
    if (pages) this.loaded.set(queue.id, { snapshot, pages });
    return true;
  }

  /** The deletion's events are stored before the compare-and-set, marked to be sent only once the queue is gone (outbox-collection.ts). */
  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    this.loaded.delete(id);
    await this.outbox.movePending(id);
    await this.outbox.insertEvents(events, { requiresQueueGone: id });
    const result = await this.queues.deleteOne({ id, version: expectedVersion });
    if (result.deletedCount !== 1) return false;
    await this.pages.deleteMany({ queueId: id });
    return true;
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

  /** In batches; also removes the pages that stopped commits left behind. */
  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    const entries = await deleteInBatches(this.entries, { stateChangedAt: { $lt: endedBefore } });
    const runs =
      (await deleteInBatches(this.runs, { finishedAt: { $lt: endedBefore } })) +
      (await deleteInBatches(this.runs, { finishedAt: null, createdAt: { $lt: endedBefore } }));
    const orphanedBefore = new Date(Date.now() - ORPHAN_AFTER_MS).toISOString();
    for await (const q of this.queues.find({}, { projection: { _id: 0, id: 1, pages: 1 } })) {
      await this.pages.deleteMany({ queueId: q.id, writtenAt: { $lt: orphanedBefore }, _id: { $nin: q.pages ?? [] } });
    }
    return { entries, runs };
  }

  /** The stored queue: the kept snapshot when its version is the stored one, else loaded. */
  private async current(filter: Filter<StoredQueue>, known?: { id: string; version: number }): Promise<QueueDoc | null> {
    const probe = known ?? (await this.queues.findOne(filter, { projection: { _id: 0, id: 1, version: 1 } }));
    if (!probe) return null;
    const kept = this.loaded.get(probe.id);
    if (kept?.snapshot.doc.version === probe.version) return kept.snapshot.doc;
    return (await this.load({ id: probe.id }))?.snapshot.doc ?? null;
  }

  /** Reads the queue document and its pages; again when a commit replaced a page in between. */
  private async load(filter: Filter<StoredQueue>): Promise<Loaded | null> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const raw = await this.queues.findOne(filter, { projection: HEAD_PROJECTION });
      if (!raw) return null;
      let loaded: Loaded;
      if (raw.pages) {
        const found = await this.pages.find({ _id: { $in: raw.pages } }, { projection: { _id: 1, rows: 1 } }).toArray();
        if (found.length !== raw.pages.length) continue;
        const pages = PageMap.of(found);
        loaded = { snapshot: snapshotOf(raw.head!, raw.version, pages.rows()), pages };
      } else {
        loaded = { snapshot: earlierSnapshot(raw), pages: null };
      }
      this.loaded.set(raw.id, loaded);
      return loaded;
    }
    throw new Error(`queue ${JSON.stringify(filter)} kept changing while being read`);
  }

  /** Decides which events to keep before anything is written, and stages those, numbered. */
  private async stage(events: readonly OutboxEvent[] | undefined, queueId: string, commitId: string) {
    const kept = await this.outbox.keep(events);
    return kept.length > 0 ? await this.outbox.stage(kept, queueId, commitId) : [];
  }

  private async insertPages(written: PageWrite): Promise<void> {
    if (written.pages.length > 0) await this.pages.insertMany(written.pages, { ordered: false });
  }

  /** After a lost compare-and-set: the commit's pages and staged events never happened. */
  private async undo(written: PageWrite, stagedBy: string | false): Promise<void> {
    if (written.pages.length > 0) await this.pages.deleteMany({ _id: { $in: written.pages.map((p) => p._id) } });
    if (stagedBy) await this.outbox.discard(stagedBy);
  }
}

function identity(queue: QueueDoc): Pick<StoredQueue, 'id' | 'repoKey' | 'branch' | 'orgId' | 'version'> {
  return { id: queue.id, repoKey: queue.repoKey, branch: queue.branch, orgId: queue.orgId, version: queue.version };
}

/** A document of an earlier version: the whole queue with arrays, or a head with rows as maps by id. */
function earlierSnapshot(raw: StoredQueue): QueueSnapshot {
  const positioned = <T>(rows: Record<string, Slot<T>> | T[] | undefined) =>
    Array.isArray(rows)
      ? rows.map((item, ord) => ({ item, ord }))
      : Object.values(rows ?? {})
          .map((s) => ({ item: s.d, ord: s.o }))
          .sort((a, b) => a.ord - b.ord);
  const rows = { entries: positioned(raw.entries), runs: positioned(raw.runs), units: positioned(raw.units) };
  if (raw.head) return snapshotOf(raw.head, raw.version, rows);
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { entries, runs, units, version, pages, commits, ...head } = raw as unknown as QueueDoc & StoredQueue;
  return snapshotOf(head as QueueHead, raw.version, rows);
}

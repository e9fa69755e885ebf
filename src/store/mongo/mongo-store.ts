import { targetNameBytes } from '../../domain/retention.js';
import { randomUUID } from 'node:crypto';
import {
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type MongoClientOptions,
  type WithoutId,
} from 'mongodb';
import type { Entry } from '../../domain/entry.js';
import type { ApiToken, Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { TestCase } from '../../domain/quarantine.js';
import type { TestRun } from '../../domain/run.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { ConflictError } from '../errors.js';
import type { Archive, PutTargetsOptions, RunFilter, Store, TargetsHead, TestCaseCounts, TestUploadWrite } from '../store.js';
import type { FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import { MongoFlakyCollections } from './flaky-collections.js';
import { commitPipeline, MongoOutbox, PENDING_EVENTS, QUEUE_PROJECTION } from './outbox-collection.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { MongoLeases } from './mongo-leases.js';
import type { Lease } from '../lease-store.js';
import { chunkNames } from './target-chunks.js';

/** The key of an impacted-target list: one PR head. */
interface TargetsKey {
  repoKey: string;
  prNumber: number;
  sha: string;
}

/** Written after its chunks, so a reader that finds a header finds the whole list. */
interface TargetsHeader extends TargetsKey {
  all: boolean;
  count: number;
  /** When the list was last put or needed by a queued entry (absent on lists stored before retention). */
  usedAt?: string;
  /** UTF-8 bytes of its names. */
  bytes?: number;
  /** Tells this list's chunks from those of a list it replaced or that replaces it. */
  generation: string;
  chunks: number;
}

interface TargetsChunk extends TargetsKey {
  generation: string;
  index: number;
  names: string[];
}

interface Secret {
  name: string;
  value: string;
}

/** A GitHub webhook delivery id already claimed, with when it was first seen. */
interface WebhookDelivery {
  id: string;
  at: string;
}

/**
 * Documents are stored as the domain objects themselves (plus MongoDB's own `_id`, never read back).
 * Every write is a single-document operation, so no replica set is needed: a queue commit is a
 * compare-and-set on `version`, preceded by idempotent upserts of its archive.
 */
export class MongoStore implements Store {
  readonly kind = 'mongo' as const;
  private readonly orgs: Collection<Org>;
  private readonly tokens: Collection<ApiToken>;
  private readonly queues: Collection<QueueDoc>;
  private readonly entries: Collection<Entry>;
  private readonly runs: Collection<TestRun>;
  private readonly targetHeaders: Collection<TargetsHeader>;
  private readonly targetChunks: Collection<TargetsChunk>;
  private readonly secrets: Collection<Secret>;
  private readonly testCases: Collection<TestCase>;
  private readonly deliveries: Collection<WebhookDelivery>;
  private readonly flaky: MongoFlakyCollections;
  readonly outbox: MongoOutbox;
  private readonly leases: MongoLeases;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {
    this.orgs = db.collection('orgs');
    this.tokens = db.collection('tokens');
    this.queues = db.collection('queues');
    this.entries = db.collection('archived_entries');
    this.runs = db.collection('archived_runs');
    this.targetHeaders = db.collection('impacted_targets');
    this.targetChunks = db.collection('impacted_target_chunks');
    this.secrets = db.collection('secrets');
    this.testCases = db.collection('test_cases');
    this.deliveries = db.collection('webhook_deliveries');
    this.outbox = new MongoOutbox(db, this.queues);
    this.flaky = new MongoFlakyCollections(db, this.testCases, this.outbox);
    this.leases = new MongoLeases(db);
  }

  /** Connects and creates the indexes (creating an existing index is a no-op). */
  static async connect(uri: string, dbName: string, options: MongoClientOptions = {}): Promise<MongoStore> {
    const client = new MongoClient(uri, { ignoreUndefined: true, ...options });
    await client.connect();
    try {
      const store = new MongoStore(client, client.db(dbName));
      await store.createIndexes();
      await store.flaky.createIndexes();
      await store.outbox.createIndexes();
      return store;
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  private async createIndexes(): Promise<void> {
    await Promise.all([
      this.orgs.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { slug: 1 }, unique: true },
        // A unique index on an array field is unique across documents: no owner in two orgs. The
        // filter leaves out orgs without owners, whose empty arrays would collide with each other.
        { key: { owners: 1 }, unique: true, partialFilterExpression: { owners: { $type: 'string' } } },
      ]),
      this.tokens.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { hash: 1 }, unique: true },
        { key: { orgId: 1 } },
      ]),
      this.queues.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { repoKey: 1, branch: 1 }, unique: true },
        { key: { orgId: 1 } },
      ]),
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
      this.targetHeaders.createIndexes([
        { key: { repoKey: 1, prNumber: 1, sha: 1 }, unique: true },
        { key: { usedAt: 1 } },
        { key: { repoKey: 1, usedAt: 1 } },
      ]),
      this.targetChunks.createIndexes([
        { key: { repoKey: 1, prNumber: 1, sha: 1, generation: 1, index: 1 }, unique: true },
      ]),
      this.secrets.createIndexes([{ key: { name: 1 }, unique: true }]),
      this.testCases.createIndexes([
        { key: { repoKey: 1, testCaseId: 1 }, unique: true },
        { key: { repoKey: 1, quarantinedAt: -1, testCaseId: 1 } },
      ]),
      this.deliveries.createIndexes([{ key: { id: 1 }, unique: true }, { key: { at: 1 } }]),
    ]);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  // Organizations and tokens

  async createOrg(org: Org): Promise<void> {
    await conflictOnDuplicate(`organization ${org.slug} or one of its owners exists`, () =>
      this.orgs.insertOne({ ...org, owners: [...new Set(org.owners)] }),
    );
  }

  async getOrgById(id: string): Promise<Org | null> {
    return findOne(this.orgs, { id });
  }

  async getOrgBySlug(slug: string): Promise<Org | null> {
    return findOne(this.orgs, { slug });
  }

  async findOrgByOwner(ownerKey: string): Promise<Org | null> {
    return findOne(this.orgs, { owners: ownerKey });
  }

  async addOrgOwner(orgId: string, ownerKey: string): Promise<void> {
    const result = await conflictOnDuplicate(`${ownerKey} belongs to another organization`, () =>
      this.orgs.updateOne({ id: orgId }, { $addToSet: { owners: ownerKey } }),
    );
    if (result.matchedCount === 0) throw new Error(`organization ${orgId} does not exist`);
  }

  async createToken(token: ApiToken): Promise<void> {
    await conflictOnDuplicate('a token with that id or hash exists', () => this.tokens.insertOne({ ...token }));
  }

  async findTokenByHash(hash: string): Promise<ApiToken | null> {
    return findOne(this.tokens, { hash });
  }

  async getToken(id: string): Promise<ApiToken | null> {
    return findOne(this.tokens, { id });
  }

  async listTokens(orgId: string): Promise<ApiToken[]> {
    return findMany(this.tokens, { orgId }, { createdAt: 1, id: 1 });
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    const result = await this.tokens.updateOne({ id, revokedAt: null }, { $set: { revokedAt: at } });
    if (result.matchedCount === 1) return true;
    return (await this.tokens.countDocuments({ id }, { limit: 1 })) === 1;
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.tokens.updateOne({ id }, { $set: { lastUsedAt: at } });
  }

  // Queues

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    await conflictOnDuplicate(`a queue exists for ${queue.repoKey} ${queue.branch}`, () =>
      this.queues.insertOne({ ...queue, [PENDING_EVENTS]: events ?? [] } as QueueDoc),
    );
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return (await this.queues.findOne({ repoKey, branch }, { projection: QUEUE_PROJECTION })) as QueueDoc | null;
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return (await this.queues.findOne({ id }, { projection: QUEUE_PROJECTION })) as QueueDoc | null;
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    const query: Filter<QueueDoc> = {};
    if (filter.orgId !== undefined) query.orgId = filter.orgId;
    if (filter.repoKey !== undefined) query.repoKey = filter.repoKey;
    return (await this.queues.find(query, { projection: QUEUE_PROJECTION, sort: { repoKey: 1, branch: 1 } }).toArray()) as QueueDoc[];
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) {
      throw new Error(`commitQueue: queue.version must be ${expectedVersion + 1}, got ${queue.version}`);
    }
    await upsertAll(this.entries, archive?.entries ?? []);
    await upsertAll(this.runs, archive?.runs ?? []);
    // One single-document compare-and-set writes the queue and appends its events (outbox-collection.ts).
    const result = await this.queues.updateOne({ id: queue.id, version: expectedVersion }, commitPipeline(queue, archive?.events ?? []));
    return result.matchedCount === 1;
  }

  /**
   * The events the document still carries are moved out first; the deletion's own events are stored
   * before the compare-and-set, marked to be sent only once the queue is gone (outbox-collection.ts).
   */
  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    await this.outbox.movePending(id);
    await this.outbox.insertEvents(events, { requiresQueueGone: id });
    const result = await this.queues.deleteOne({ id, version: expectedVersion, [`${PENDING_EVENTS}.0`]: { $exists: false } });
    return result.deletedCount === 1;
  }

  // Archive

  async latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    const [latest] = await findMany(this.entries, { queueId, prNumber }, { seq: -1 }, 1);
    return latest ?? null;
  }

  async archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    if (queueIds.length === 0) return [];
    return findMany(
      this.entries,
      { queueId: { $in: queueIds }, stateChangedAt: { $gte: since } },
      { stateChangedAt: 1, queueId: 1, seq: 1 },
    );
  }

  async archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    const query: Filter<TestRun> = { queueId };
    if (filter.runId !== undefined) query.id = filter.runId;
    if (filter.prNumber !== undefined) query['prs.prNumber'] = filter.prNumber;
    if (filter.finishedSince !== undefined) query.finishedAt = { $gte: filter.finishedSince };
    // Same order as SQLite: a null finishedAt sorts last when descending.
    return findMany(this.runs, query, { finishedAt: -1, createdAt: -1, id: 1 });
  }

  // Impacted targets

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const key: TargetsKey = { repoKey, prNumber, sha };
    const generation = randomUUID();
    const chunks = targets.all ? [] : chunkNames(targets.targets);
    if (chunks.length > 0) {
      await this.targetChunks.insertMany(
        chunks.map((names, index) => ({ ...key, generation, index, names })),
        { ordered: false },
      );
    }
    const header: TargetsHeader = {
      ...key,
      all: targets.all,
      count: targets.all ? 0 : targets.targets.length,
      generation,
      chunks: chunks.length,
      usedAt: options.at ?? new Date().toISOString(),
      bytes: targets.all ? 0 : targetNameBytes(targets.targets),
    };
    const replaced = await retryOnDuplicate(() =>
      this.targetHeaders.findOneAndReplace(key, header, { upsert: true, returnDocument: 'before' }),
    );
    // Each writer removes the chunks of the list it replaced, so concurrent writers never delete
    // the chunks of the list that is current.
    if (replaced) await this.targetChunks.deleteMany({ ...key, generation: replaced.generation });
    if (options.maxBytesPerRepo !== undefined) await this.capTargets(key, options.maxBytesPerRepo);
  }

  /** Drops the repository's least recently used lists, other than `kept`, until it holds at most `maxBytes`. */
  private async capTargets(kept: TargetsKey, maxBytes: number): Promise<void> {
    const lists = await this.targetHeaders
      .find({ repoKey: kept.repoKey }, { projection: { _id: 0, prNumber: 1, sha: 1, bytes: 1, generation: 1 } })
      .sort({ usedAt: 1, prNumber: 1, sha: 1 })
      .toArray();
    let total = lists.reduce((sum, l) => sum + (l.bytes ?? 0), 0);
    for (const list of lists) {
      if (total <= maxBytes) break;
      if (list.prNumber === kept.prNumber && list.sha === kept.sha) continue;
      await this.deleteTargets({ repoKey: kept.repoKey, prNumber: list.prNumber, sha: list.sha }, list.generation);
      total -= list.bytes ?? 0;
    }
  }

  /** Header first: a reader never finds a header without its chunks. */
  private async deleteTargets(key: TargetsKey, generation: string): Promise<boolean> {
    const deleted = await this.targetHeaders.deleteOne({ ...key, generation });
    await this.targetChunks.deleteMany({ ...key, generation });
    return deleted.deletedCount === 1;
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    if (heads.length === 0) return;
    await this.targetHeaders.updateMany(
      { repoKey, $or: heads.map((h) => ({ prNumber: h.prNumber, sha: h.sha })) },
      { $max: { usedAt: at } },
    );
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    const unused = await this.targetHeaders
      .find({ $or: [{ usedAt: { $lt: unusedSince } }, { usedAt: { $exists: false } }] }, { projection: { _id: 0, repoKey: 1, prNumber: 1, sha: 1, generation: 1 } })
      .toArray();
    let pruned = 0;
    for (const h of unused) if (await this.deleteTargets({ repoKey: h.repoKey, prNumber: h.prNumber, sha: h.sha }, h.generation)) pruned++;
    return pruned;
  }

  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    const entries = await this.entries.deleteMany({ stateChangedAt: { $lt: endedBefore } });
    const runs = await this.runs.deleteMany({
      $or: [{ finishedAt: { $lt: endedBefore } }, { finishedAt: null, createdAt: { $lt: endedBefore } }],
    });
    return { entries: entries.deletedCount, runs: runs.deletedCount };
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    const key: TargetsKey = { repoKey, prNumber, sha };
    // A list replaced between reading its header and its chunks is gone: read the new one.
    for (let attempt = 0; attempt < 5; attempt++) {
      const header = await findOne(this.targetHeaders, key);
      if (!header) return null;
      if (header.all) return { all: true };
      const chunks = await findMany(this.targetChunks, { ...key, generation: header.generation }, { index: 1 });
      if (chunks.length === header.chunks) return { all: false, targets: chunks.flatMap((c) => c.names) };
    }
    throw new Error(`impacted targets of ${repoKey}#${prNumber} at ${sha} kept changing while being read`);
  }

  // Secrets

  async getOrCreateSecret(name: string, create: () => string): Promise<string> {
    const existing = await findOne(this.secrets, { name });
    if (existing) return existing.value;
    // Insert-if-absent: of concurrent first callers, one insert lands and everyone reads it back.
    await retryOnDuplicate(() =>
      this.secrets.updateOne({ name }, { $setOnInsert: { name, value: create() } }, { upsert: true }),
    );
    const secret = await findOne(this.secrets, { name });
    if (!secret) throw new Error(`secret ${name} vanished after being created`);
    return secret.value;
  }

  // Webhook deliveries

  async claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean> {
    await this.deliveries.deleteMany({ at: { $lt: keepSince } });
    // The unique index on id decides: of concurrent claims, exactly one insert lands.
    try {
      await this.deliveries.insertOne({ id: deliveryId, at });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  // Leases (mongo-leases.ts)

  takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease> {
    return this.leases.takeLease(name, holder, now, expiresAt);
  }
  releaseLease(name: string, holder: string): Promise<void> {
    return this.leases.releaseLease(name, holder);
  }

  async releaseWebhookDelivery(deliveryId: string): Promise<void> {
    await this.deliveries.deleteOne({ id: deliveryId });
  }

  // Test cases

  // Flaky-test data (flaky-collections.ts)

  getTestUpload(repoKey: string, uploadId: string): Promise<TestUpload | null> {
    return this.flaky.getTestUpload(repoKey, uploadId);
  }
  commitTestUpload(write: TestUploadWrite): Promise<boolean> {
    return this.flaky.commitTestUpload(write);
  }
  getTestCases(repoKey: string, testCaseIds: string[]): Promise<TestCase[]> {
    return this.flaky.getTestCases(repoKey, testCaseIds);
  }
  existingTestCaseIds(repoKey: string, testCaseIds: string[]): Promise<string[]> {
    return this.flaky.existingTestCaseIds(repoKey, testCaseIds);
  }
  testCasesToWatch(repoKey: string, failedSince: string): Promise<TestCase[]> {
    return this.flaky.testCasesToWatch(repoKey, failedSince);
  }
  writeTestCases(testCases: TestCase[], events: TestCaseEvent[]): Promise<void> {
    return this.flaky.writeTestCases(testCases, events);
  }
  testResults(repoKey: string, testCaseIds: string[], since: string): Promise<TestResult[]> {
    return this.flaky.testResults(repoKey, testCaseIds, since);
  }
  testCaseEvents(repoKey: string, testCaseId: string): Promise<TestCaseEvent[]> {
    return this.flaky.testCaseEvents(repoKey, testCaseId);
  }
  getFlakySettings(repoKey: string): Promise<FlakySettings | null> {
    return this.flaky.getFlakySettings(repoKey);
  }
  putFlakySettings(repoKey: string, settings: FlakySettings): Promise<void> {
    return this.flaky.putFlakySettings(repoKey, settings);
  }
  testCaseCounts(repoKeys: string[]): Promise<TestCaseCounts[]> {
    return this.flaky.testCaseCounts(repoKeys);
  }

  async upsertTestCase(testCase: TestCase): Promise<void> {
    const { repoKey, testCaseId } = testCase;
    await retryOnDuplicate(() => this.testCases.replaceOne({ repoKey, testCaseId }, { ...testCase }, { upsert: true }));
  }

  async getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null> {
    return findOne(this.testCases, { repoKey, testCaseId });
  }

  async listQuarantinedTests(
    repoKey: string,
    page: { offset: number; limit: number },
  ): Promise<{ rows: TestCase[]; total: number }> {
    const query: Filter<TestCase> = { repoKey, quarantinedAt: { $ne: null } };
    const [rows, total] = await Promise.all([
      page.limit > 0
        ? this.testCases
            .find(query, { projection: { _id: 0 } })
            .sort({ quarantinedAt: -1, testCaseId: 1 })
            .skip(page.offset)
            .limit(page.limit)
            .toArray()
        : Promise.resolve([]),
      this.testCases.countDocuments(query),
    ]);
    return { rows: rows as TestCase[], total };
  }

  async listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const query: Filter<TestCase> = { repoKey, $or: [{ status: { $ne: 'healthy' } }, { quarantinedAt: { $ne: null } }] };
    const [rows, total] = await Promise.all([
      page.limit > 0
        ? this.testCases.find(query, { projection: { _id: 0 } }).sort({ statusLastUpdatedAt: -1, testCaseId: 1 }).skip(page.offset).limit(page.limit).toArray()
        : Promise.resolve([]),
      this.testCases.countDocuments(query),
    ]);
    return { rows: rows as TestCase[], total };
  }
}

async function findOne<T extends Document>(collection: Collection<T>, filter: Filter<T>): Promise<T | null> {
  return (await collection.findOne(filter, { projection: { _id: 0 } })) as T | null;
}

async function findMany<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  sort: Record<string, 1 | -1>,
  limit = 0,
): Promise<T[]> {
  return (await collection.find(filter, { projection: { _id: 0 }, sort, limit }).toArray()) as T[];
}

/** Upserts by `id`: writing the same archive twice leaves one copy. */
async function upsertAll<T extends { id: string }>(collection: Collection<T>, docs: T[]): Promise<void> {
  if (docs.length === 0) return;
  const ops: AnyBulkWriteOperation<T>[] = docs.map((doc) => ({
    replaceOne: { filter: { id: doc.id } as Filter<T>, replacement: { ...doc } as WithoutId<T>, upsert: true },
  }));
  await retryOnDuplicate(() => collection.bulkWrite(ops, { ordered: false }));
}

function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

async function conflictOnDuplicate<R>(message: string, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (isDuplicateKey(err)) throw new ConflictError(message);
    throw err;
  }
}

/**
 * Two concurrent upserts of a new key can both try to insert; the loser fails with a duplicate key
 * error, and repeating it then finds and updates the winner's document.
 */
async function retryOnDuplicate<R>(write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return write();
  }
}

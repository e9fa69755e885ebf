import { MongoClient, type Collection, type Db, type Filter, type MongoClientOptions } from 'mongodb';
import type { Entry } from '../../domain/entry.js';
import type { ApiToken, Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { TestCase } from '../../domain/quarantine.js';
import type { TestRun } from '../../domain/run.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { conflictOnDuplicate, findMany, findOne, isDuplicateKey, retryOnDuplicate } from './collection-ops.js';
import { MongoQueueCollections } from './queue-collection.js';
import type { Archive, PutTargetsOptions, RunFilter, Store, TargetsHead, TestCaseCounts, TestUploadWrite } from '../store.js';
import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import { MongoFlakyCollections } from './flaky-collections.js';
import { MongoInbox } from './inbox-collection.js';
import { MongoTemplates } from './template-collection.js';
import { MongoOutbox } from './outbox-collection.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { MongoLeases } from './mongo-leases.js';
import type { Lease } from '../lease-store.js';
import { MongoTargetCollections } from './target-collections.js';
import { MongoCounters } from './counters.js';

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
 * Documents are stored as the domain objects themselves (plus MongoDB's own `_id`, never read back),
 * apart from queues (queue-collection.ts). No write needs a replica set: a queue commit writes its
 * archive (idempotent upserts), its pages and staged events, then a compare-and-set on `version`.
 */
export class MongoStore implements Store {
  readonly kind = 'mongo' as const;
  private readonly orgs: Collection<Org>;
  private readonly tokens: Collection<ApiToken>;
  private readonly queueCollections: MongoQueueCollections;
  private readonly targets: MongoTargetCollections;
  private readonly secrets: Collection<Secret>;
  private readonly testCases: Collection<TestCase>;
  private readonly deliveries: Collection<WebhookDelivery>;
  private readonly flaky: MongoFlakyCollections;
  readonly outbox: MongoOutbox;
  readonly inbox: MongoInbox;
  readonly templates: MongoTemplates;
  private readonly leases: MongoLeases;
  private readonly counters: MongoCounters;

  /** `close` ends what `db` was opened with (the client). */
  private constructor(
    private readonly db: Db,
    private readonly closeClient: () => Promise<void>,
  ) {
    this.orgs = db.collection('orgs');
    this.tokens = db.collection('tokens');
    this.targets = new MongoTargetCollections(db);
    this.secrets = db.collection('secrets');
    this.testCases = db.collection('test_cases');
    this.deliveries = db.collection('webhook_deliveries');
    this.counters = new MongoCounters(db);
    this.outbox = new MongoOutbox(db, db.collection('queues'), this.counters);
    this.inbox = new MongoInbox(db);
    this.templates = new MongoTemplates(db);
    this.queueCollections = new MongoQueueCollections(db, this.outbox);
    this.flaky = new MongoFlakyCollections(db, this.testCases, this.outbox, this.counters);
    this.leases = new MongoLeases(db);
  }

  /** Connects and creates the indexes (creating an existing index is a no-op). */
  static async connect(uri: string, dbName: string, options: MongoClientOptions = {}): Promise<MongoStore> {
    const client = new MongoClient(uri, { ignoreUndefined: true, ...options });
    await client.connect();
    try {
      return await MongoStore.onDb(client.db(dbName), () => client.close());
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  /** A store on an open database (tests pass a recording one); creates the indexes. */
  static async onDb(db: Db, close: () => Promise<void>): Promise<MongoStore> {
    const store = new MongoStore(db, close);
    await Promise.all([store.createIndexes(), store.flaky.createIndexes(), store.outbox.createIndexes(), store.inbox.createIndexes(), store.templates.createIndexes(), store.counters.createIndexes()]);
    return store;
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
        { key: { orgId: 1, createdAt: 1, id: 1 } },
      ]),
      this.queueCollections.createIndexes(),
      this.targets.createIndexes(),
      this.secrets.createIndexes([{ key: { name: 1 }, unique: true }]),
      this.testCases.createIndexes([
        { key: { repoKey: 1, testCaseId: 1 }, unique: true },
        { key: { repoKey: 1, quarantinedAt: -1, testCaseId: 1 } },
        { key: { repoKey: 1, statusLastUpdatedAt: -1, testCaseId: 1 } },
      ]),
      this.deliveries.createIndexes([{ key: { id: 1 }, unique: true }, { key: { at: 1 } }]),
    ]);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  async close(): Promise<void> {
    await this.closeClient();
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

  async listOrgs(): Promise<Org[]> {
    return findMany(this.orgs, {}, { slug: 1 });
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

  // Queues and their archive (queue-collection.ts)

  insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    return this.queueCollections.insertQueue(queue, events);
  }
  getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return this.queueCollections.getQueue(repoKey, branch);
  }
  getQueueById(id: string): Promise<QueueDoc | null> {
    return this.queueCollections.getQueueById(id);
  }
  listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    return this.queueCollections.listQueues(filter);
  }
  commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    return this.queueCollections.commitQueue(queue, expectedVersion, archive);
  }
  deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    return this.queueCollections.deleteQueue(id, expectedVersion, events);
  }
  latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    return this.queueCollections.latestArchivedEntry(queueId, prNumber);
  }
  archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    return this.queueCollections.archivedEntriesEndedSince(queueIds, since);
  }
  archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    return this.queueCollections.archivedRuns(queueId, filter);
  }
  pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    return this.queueCollections.pruneHistory(endedBefore);
  }

  // Impacted targets (target-collections.ts)
  putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options?: PutTargetsOptions): Promise<void> {
    return this.targets.put(repoKey, prNumber, sha, targets, options);
  }
  getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    return this.targets.get(repoKey, prNumber, sha);
  }
  touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    return this.targets.touch(repoKey, heads, at);
  }
  pruneImpactedTargets(unusedSince: string): Promise<number> {
    return this.targets.prune(unusedSince);
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

  // Test cases and the other flaky-test data (flaky-collections.ts)

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

  detectionResults(repoKey: string, testCaseIds: string[], since: string, scope: DetectionScope): Promise<TestResult[]> {
    return this.flaky.detectionResults(repoKey, testCaseIds, since, scope);
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

  listQuarantinedTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    return this.testCasePage({ repoKey, quarantinedAt: { $ne: null } }, { quarantinedAt: -1, testCaseId: 1 }, page);
  }

  listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const query: Filter<TestCase> = { repoKey, $or: [{ status: { $ne: 'healthy' } }, { quarantinedAt: { $ne: null } }] };
    return this.testCasePage(query, { statusLastUpdatedAt: -1, testCaseId: 1 }, page);
  }

  private async testCasePage(query: Filter<TestCase>, sort: Record<string, 1 | -1>, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const rows = page.limit > 0 ? this.testCases.find(query, { projection: { _id: 0 }, sort }).skip(page.offset).limit(page.limit).toArray() : Promise.resolve([]);
    const [found, total] = await Promise.all([rows, this.testCases.countDocuments(query)]);
    return { rows: found as TestCase[], total };
  }
}

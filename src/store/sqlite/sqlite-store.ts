import { targetNameBytes } from '../../domain/retention.js';
import Database from 'better-sqlite3';
import type { Entry } from '../../domain/entry.js';
import type { ApiToken, Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { TestCase } from '../../domain/quarantine.js';
import type { TestRun } from '../../domain/run.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { ConflictError } from '../errors.js';
import type { Archive, PutTargetsOptions, RunFilter, Store, TargetsHead, TestCaseCounts, TestUploadWrite } from '../store.js';
import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import { SqliteFlakyTables } from './flaky-tables.js';
import { asConflict, SqliteQueueTables } from './queue-tables.js';
import { SqliteInboxTable } from './inbox-table.js';
import { openDatabase } from './open-database.js';
import { SqliteOutboxTable } from './outbox-table.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { SqliteLeases } from './sqlite-leases.js';
import type { Lease } from '../lease-store.js';
import { migrate } from './schema.js';

/**
 * The embedded store: one SQLite file (or `:memory:`). better-sqlite3 is synchronous, so every
 * method runs to completion before it returns its promise; no two of them ever interleave within a
 * process, and SQLite's locking serializes writers across processes.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly createOrgTx;
  private readonly claimDeliveryTx;
  private readonly flaky: SqliteFlakyTables;
  readonly outbox: SqliteOutboxTable;
  readonly inbox: SqliteInboxTable;
  private readonly leases: SqliteLeases;
  private readonly putTargetsTx;
  private readonly queues: SqliteQueueTables;

  constructor(path: string) {
    this.db = openDatabase(path);
    migrate(this.db);
    const db = this.db;
    this.outbox = new SqliteOutboxTable(db);
    this.inbox = new SqliteInboxTable(db);
    this.flaky = new SqliteFlakyTables(db, this.outbox);
    this.leases = new SqliteLeases(db);
    this.queues = new SqliteQueueTables(db, this.outbox);
    this.stmt = {
      ping: db.prepare('SELECT 1').pluck(),

      insertOrg: db.prepare('INSERT INTO orgs (id, slug, doc) VALUES (?, ?, ?)'),
      updateOrgDoc: db.prepare('UPDATE orgs SET doc = ? WHERE id = ?'),
      orgById: db.prepare('SELECT doc FROM orgs WHERE id = ?').pluck(),
      orgBySlug: db.prepare('SELECT doc FROM orgs WHERE slug = ?').pluck(),
      allOrgs: db.prepare('SELECT doc FROM orgs ORDER BY slug').pluck(),
      orgByOwner: db.prepare('SELECT o.doc FROM org_owners w JOIN orgs o ON o.id = w.org_id WHERE w.owner_key = ?').pluck(),
      ownerOrgId: db.prepare('SELECT org_id FROM org_owners WHERE owner_key = ?').pluck(),
      insertOwner: db.prepare('INSERT INTO org_owners (owner_key, org_id) VALUES (?, ?)'),

      insertToken: db.prepare('INSERT INTO tokens (id, org_id, hash, doc) VALUES (?, ?, ?, ?)'),
      tokenByHash: db.prepare('SELECT doc FROM tokens WHERE hash = ?').pluck(),
      tokenById: db.prepare('SELECT doc FROM tokens WHERE id = ?').pluck(),
      tokensByOrg: db.prepare("SELECT doc FROM tokens WHERE org_id = ? ORDER BY json_extract(doc, '$.createdAt'), id").pluck(),
      updateTokenDoc: db.prepare('UPDATE tokens SET doc = ? WHERE id = ?'),

      putTargets: db.prepare(
        `INSERT OR REPLACE INTO impacted_targets (repo_key, pr_number, sha, all_targets, count, encoding, names, used_at, bytes)
         VALUES (@repoKey, @prNumber, @sha, @all, @count, @encoding, @names, @usedAt, @bytes)`,
      ),
      targetsOfRepoByUse: db.prepare('SELECT pr_number AS prNumber, sha, bytes FROM impacted_targets WHERE repo_key = ? ORDER BY used_at, pr_number, sha'),
      deleteTargets: db.prepare('DELETE FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?'),
      touchTargets: db.prepare('UPDATE impacted_targets SET used_at = ? WHERE repo_key = ? AND pr_number = ? AND sha = ? AND used_at < ?'),
      pruneTargets: db.prepare('DELETE FROM impacted_targets WHERE used_at < ?'),
      getTargets: db.prepare('SELECT all_targets, count, encoding, names FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?'),

      secret: db.prepare('SELECT value FROM secrets WHERE name = ?').pluck(),
      insertSecret: db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)'),

      pruneDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE at < ?'),
      insertDelivery: db.prepare('INSERT OR IGNORE INTO webhook_deliveries (id, at) VALUES (?, ?)'),
      deleteDelivery: db.prepare('DELETE FROM webhook_deliveries WHERE id = ?'),

      testCase: db.prepare('SELECT doc FROM test_cases WHERE repo_key = ? AND test_case_id = ?').pluck(),
      quarantined: db.prepare(
        `SELECT doc FROM test_cases WHERE repo_key = ? AND quarantined_at IS NOT NULL
         ORDER BY quarantined_at DESC, test_case_id LIMIT ? OFFSET ?`,
      ).pluck(),
      quarantinedCount: db.prepare('SELECT count(*) FROM test_cases WHERE repo_key = ? AND quarantined_at IS NOT NULL').pluck(),
      flaky: db.prepare(
        `SELECT doc FROM test_cases WHERE repo_key = ? AND (status != 'healthy' OR quarantined_at IS NOT NULL)
         ORDER BY json_extract(doc, '$.statusLastUpdatedAt') DESC, test_case_id LIMIT ? OFFSET ?`,
      ).pluck(),
      flakyCount: db.prepare("SELECT count(*) FROM test_cases WHERE repo_key = ? AND (status != 'healthy' OR quarantined_at IS NOT NULL)").pluck(),
    };

    this.createOrgTx = db.transaction((org: Org) => {
      this.stmt.insertOrg.run(org.id, org.slug, JSON.stringify(org));
      for (const owner of new Set(org.owners)) this.stmt.insertOwner.run(owner, org.id);
    });
    this.putTargetsTx = db.transaction((row: Record<string, unknown>, maxBytesPerRepo: number | undefined) => {
      this.stmt.putTargets.run(row);
      if (maxBytesPerRepo === undefined) return;
      const lists = this.stmt.targetsOfRepoByUse.all(row.repoKey) as { prNumber: number; sha: string; bytes: number }[];
      let total = lists.reduce((sum, l) => sum + l.bytes, 0);
      for (const list of lists) {
        if (total <= maxBytesPerRepo) break;
        if (list.prNumber === row.prNumber && list.sha === row.sha) continue;
        this.stmt.deleteTargets.run(row.repoKey, list.prNumber, list.sha);
        total -= list.bytes;
      }
    });
    this.claimDeliveryTx = db.transaction((deliveryId: string, at: string, keepSince: string): boolean => {
      this.stmt.pruneDeliveries.run(keepSince);
      return this.stmt.insertDelivery.run(deliveryId, at).changes === 1;
    });
  }

  async ping(): Promise<void> {
    this.stmt.ping.get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  // Organizations and tokens

  async createOrg(org: Org): Promise<void> {
    try {
      this.createOrgTx(org);
    } catch (err) {
      throw asConflict(err, `organization ${org.slug} or one of its owners exists`);
    }
  }

  async getOrgById(id: string): Promise<Org | null> {
    return parse<Org>(this.stmt.orgById.get(id));
  }

  async getOrgBySlug(slug: string): Promise<Org | null> {
    return parse<Org>(this.stmt.orgBySlug.get(slug));
  }

  async findOrgByOwner(ownerKey: string): Promise<Org | null> {
    return parse<Org>(this.stmt.orgByOwner.get(ownerKey));
  }

  async listOrgs(): Promise<Org[]> {
    return (this.stmt.allOrgs.all() as string[]).map((doc) => JSON.parse(doc) as Org);
  }

  async addOrgOwner(orgId: string, ownerKey: string): Promise<void> {
    this.db.transaction(() => {
      const org = parse<Org>(this.stmt.orgById.get(orgId));
      if (!org) throw new Error(`organization ${orgId} does not exist`);
      const holder = this.stmt.ownerOrgId.get(ownerKey) as string | undefined;
      if (holder === orgId) return;
      if (holder !== undefined) throw new ConflictError(`${ownerKey} belongs to another organization`);
      this.stmt.insertOwner.run(ownerKey, orgId);
      this.stmt.updateOrgDoc.run(JSON.stringify({ ...org, owners: [...org.owners, ownerKey] }), orgId);
    }).immediate();
  }

  async createToken(token: ApiToken): Promise<void> {
    try {
      this.stmt.insertToken.run(token.id, token.orgId, token.hash, JSON.stringify(token));
    } catch (err) {
      throw asConflict(err, 'a token with that id or hash exists');
    }
  }

  async findTokenByHash(hash: string): Promise<ApiToken | null> {
    return parse<ApiToken>(this.stmt.tokenByHash.get(hash));
  }

  async getToken(id: string): Promise<ApiToken | null> {
    return parse<ApiToken>(this.stmt.tokenById.get(id));
  }

  async listTokens(orgId: string): Promise<ApiToken[]> {
    return parseAll<ApiToken>(this.stmt.tokensByOrg.all(orgId));
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return this.updateToken(id, (t) => (t.revokedAt ? t : { ...t, revokedAt: at }));
  }

  async touchToken(id: string, at: string): Promise<void> {
    this.updateToken(id, (t) => ({ ...t, lastUsedAt: at }));
  }

  private updateToken(id: string, change: (token: ApiToken) => ApiToken): boolean {
    return this.db.transaction(() => {
      const token = parse<ApiToken>(this.stmt.tokenById.get(id));
      if (!token) return false;
      this.stmt.updateTokenDoc.run(JSON.stringify(change(token)), id);
      return true;
    }).immediate();
  }

  // Queues and their archive (queue-tables.ts)

  insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    return this.queues.insertQueue(queue, events);
  }
  getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return this.queues.getQueue(repoKey, branch);
  }
  getQueueById(id: string): Promise<QueueDoc | null> {
    return this.queues.getQueueById(id);
  }
  listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    return this.queues.listQueues(filter);
  }
  commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    return this.queues.commitQueue(queue, expectedVersion, archive);
  }
  deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    return this.queues.deleteQueue(id, expectedVersion, events);
  }
  latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    return this.queues.latestArchivedEntry(queueId, prNumber);
  }
  archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    return this.queues.archivedEntriesEndedSince(queueIds, since);
  }
  archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    return this.queues.archivedRuns(queueId, filter);
  }
  pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    return this.queues.pruneHistory(endedBefore);
  }

  // Impacted targets

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const names = targets.all ? [] : targets.targets;
    const joined = names.join('\n');
    // Joining is reversible only when no name holds a newline, i.e. the text has exactly the separators.
    const lines = names.length === 0 || countNewlines(joined) === names.length - 1;
    const text = lines ? joined : JSON.stringify(names);
    const row = {
      repoKey,
      prNumber,
      sha,
      all: targets.all ? 1 : 0,
      count: names.length,
      encoding: lines ? 'lines' : 'json',
      names: text,
      usedAt: options.at ?? new Date().toISOString(),
      // Joined text holds the names and one separator between each two.
      bytes: lines ? Buffer.byteLength(text) - Math.max(0, names.length - 1) : targetNameBytes(names),
    };
    this.putTargetsTx.immediate(row, options.maxBytesPerRepo);
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    this.db.transaction(() => {
      for (const head of heads) this.stmt.touchTargets.run(at, repoKey, head.prNumber, head.sha, at);
    })();
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    return this.stmt.pruneTargets.run(unusedSince).changes;
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    const row = this.stmt.getTargets.get(repoKey, prNumber, sha) as
      | { all_targets: number; count: number; encoding: 'lines' | 'json'; names: string }
      | undefined;
    if (!row) return null;
    if (row.all_targets) return { all: true };
    if (row.count === 0) return { all: false, targets: [] };
    return { all: false, targets: row.encoding === 'lines' ? row.names.split('\n') : (JSON.parse(row.names) as string[]) };
  }

  // Secrets

  async getOrCreateSecret(name: string, create: () => string): Promise<string> {
    const existing = this.stmt.secret.get(name) as string | undefined;
    if (existing !== undefined) return existing;
    // Another process may insert first; whichever row landed is the answer for everyone.
    this.stmt.insertSecret.run(name, create());
    return this.stmt.secret.get(name) as string;
  }

  // Webhook deliveries

  async claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean> {
    return this.claimDeliveryTx.immediate(deliveryId, at, keepSince);
  }

  async releaseWebhookDelivery(deliveryId: string): Promise<void> {
    this.stmt.deleteDelivery.run(deliveryId);
  }

  // Test cases

  async upsertTestCase(testCase: TestCase): Promise<void> {
    await this.flaky.writeTestCases([testCase], []);
  }

  async getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null> {
    return parse<TestCase>(this.stmt.testCase.get(repoKey, testCaseId));
  }

  async listQuarantinedTests(
    repoKey: string,
    page: { offset: number; limit: number },
  ): Promise<{ rows: TestCase[]; total: number }> {
    return this.db.transaction(() => ({
      rows: parseAll<TestCase>(this.stmt.quarantined.all(repoKey, page.limit, page.offset)),
      total: this.stmt.quarantinedCount.get(repoKey) as number,
    }))();
  }

  async listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    return this.db.transaction(() => ({
      rows: parseAll<TestCase>(this.stmt.flaky.all(repoKey, page.limit, page.offset)),
      total: this.stmt.flakyCount.get(repoKey) as number,
    }))();
  }

  // Leases (sqlite-leases.ts)

  takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease> {
    return this.leases.takeLease(name, holder, now, expiresAt);
  }
  releaseLease(name: string, holder: string): Promise<void> {
    return this.leases.releaseLease(name, holder);
  }

  // Flaky-test data (flaky-tables.ts)

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
}

function parse<T>(doc: unknown): T | null {
  return doc === undefined ? null : (JSON.parse(doc as string) as T);
}

function parseAll<T>(docs: unknown[]): T[] {
  return docs.map((d) => JSON.parse(d as string) as T);
}

function countNewlines(text: string): number {
  let count = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

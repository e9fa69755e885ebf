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
import type { FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import { SqliteFlakyTables } from './flaky-tables.js';
import { SqliteOutboxTable } from './outbox-table.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { SqliteLeases } from './sqlite-leases.js';
import type { Lease } from '../lease-store.js';
import { migrate } from './schema.js';

/** How long a write waits for another process holding the database's write lock. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The embedded store: one SQLite file (or `:memory:`). better-sqlite3 is synchronous, so every
 * method runs to completion before it returns its promise; no two of them ever interleave within a
 * process, and SQLite's locking serializes writers across processes.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly commitTx;
  private readonly createOrgTx;
  private readonly claimDeliveryTx;
  private readonly flaky: SqliteFlakyTables;
  readonly outbox: SqliteOutboxTable;
  private readonly leases: SqliteLeases;
  private readonly putTargetsTx;
  private readonly pruneHistoryTx;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (path !== ':memory:') {
      this.db.pragma('journal_mode = WAL');
      // With WAL, NORMAL survives a crash of the process; only a power loss can drop the last commits.
      this.db.pragma('synchronous = NORMAL');
    }
    this.db.pragma('foreign_keys = ON');
    migrate(this.db);
    const db = this.db;
    this.outbox = new SqliteOutboxTable(db);
    this.flaky = new SqliteFlakyTables(db, this.outbox);
    this.leases = new SqliteLeases(db);
    this.stmt = {
      ping: db.prepare('SELECT 1').pluck(),

      insertOrg: db.prepare('INSERT INTO orgs (id, slug, doc) VALUES (?, ?, ?)'),
      updateOrgDoc: db.prepare('UPDATE orgs SET doc = ? WHERE id = ?'),
      orgById: db.prepare('SELECT doc FROM orgs WHERE id = ?').pluck(),
      orgBySlug: db.prepare('SELECT doc FROM orgs WHERE slug = ?').pluck(),
      orgByOwner: db.prepare('SELECT o.doc FROM org_owners w JOIN orgs o ON o.id = w.org_id WHERE w.owner_key = ?').pluck(),
      ownerOrgId: db.prepare('SELECT org_id FROM org_owners WHERE owner_key = ?').pluck(),
      insertOwner: db.prepare('INSERT INTO org_owners (owner_key, org_id) VALUES (?, ?)'),

      insertToken: db.prepare('INSERT INTO tokens (id, org_id, hash, doc) VALUES (?, ?, ?, ?)'),
      tokenByHash: db.prepare('SELECT doc FROM tokens WHERE hash = ?').pluck(),
      tokenById: db.prepare('SELECT doc FROM tokens WHERE id = ?').pluck(),
      tokensByOrg: db.prepare("SELECT doc FROM tokens WHERE org_id = ? ORDER BY json_extract(doc, '$.createdAt'), id").pluck(),
      updateTokenDoc: db.prepare('UPDATE tokens SET doc = ? WHERE id = ?'),

      insertQueue: db.prepare(
        'INSERT INTO queues (id, repo_key, branch, org_id, version, doc) VALUES (@id, @repoKey, @branch, @orgId, @version, @doc)',
      ),
      queueByKey: db.prepare('SELECT doc FROM queues WHERE repo_key = ? AND branch = ?').pluck(),
      queueById: db.prepare('SELECT doc FROM queues WHERE id = ?').pluck(),
      queuesAll: db.prepare('SELECT doc FROM queues ORDER BY repo_key, branch').pluck(),
      queuesByOrg: db.prepare('SELECT doc FROM queues WHERE org_id = ? ORDER BY repo_key, branch').pluck(),
      queuesByRepo: db.prepare('SELECT doc FROM queues WHERE repo_key = ? ORDER BY branch').pluck(),
      queuesByOrgAndRepo: db.prepare('SELECT doc FROM queues WHERE org_id = ? AND repo_key = ? ORDER BY branch').pluck(),
      casQueue: db.prepare('UPDATE queues SET version = @version, doc = @doc WHERE id = @id AND version = @expected'),
      casDeleteQueue: db.prepare('DELETE FROM queues WHERE id = ? AND version = ?'),

      upsertEntry: db.prepare(
        `INSERT INTO archived_entries (id, queue_id, pr_number, seq, state_changed_at, doc)
         VALUES (@id, @queueId, @prNumber, @seq, @stateChangedAt, @doc)
         ON CONFLICT (id) DO UPDATE SET queue_id = excluded.queue_id, pr_number = excluded.pr_number,
           seq = excluded.seq, state_changed_at = excluded.state_changed_at, doc = excluded.doc`,
      ),
      latestEntry: db.prepare(
        'SELECT doc FROM archived_entries WHERE queue_id = ? AND pr_number = ? ORDER BY seq DESC LIMIT 1',
      ).pluck(),
      entriesEndedSince: db.prepare(
        `SELECT doc FROM archived_entries
         WHERE queue_id IN (SELECT value FROM json_each(?)) AND state_changed_at >= ?
         ORDER BY state_changed_at, queue_id, seq`,
      ).pluck(),

      upsertRun: db.prepare(
        `INSERT INTO archived_runs (id, queue_id, created_at, finished_at, doc)
         VALUES (@id, @queueId, @createdAt, @finishedAt, @doc)
         ON CONFLICT (id) DO UPDATE SET queue_id = excluded.queue_id, created_at = excluded.created_at,
           finished_at = excluded.finished_at, doc = excluded.doc`,
      ),
      deleteRunPrs: db.prepare('DELETE FROM archived_run_prs WHERE run_id = ?'),
      insertRunPr: db.prepare('INSERT OR IGNORE INTO archived_run_prs (run_id, queue_id, pr_number) VALUES (?, ?, ?)'),
      // Both run queries take every filter; a null parameter means "not filtered".
      runs: db.prepare(
        `SELECT doc FROM archived_runs
         WHERE queue_id = @queueId AND (@runId IS NULL OR id = @runId)
           AND (@finishedSince IS NULL OR finished_at >= @finishedSince)
         ORDER BY finished_at DESC, created_at DESC, id`,
      ).pluck(),
      runsOfPr: db.prepare(
        `SELECT doc FROM archived_runs
         WHERE id IN (SELECT run_id FROM archived_run_prs WHERE queue_id = @queueId AND pr_number = @prNumber)
           AND queue_id = @queueId AND (@runId IS NULL OR id = @runId)
           AND (@finishedSince IS NULL OR finished_at >= @finishedSince)
         ORDER BY finished_at DESC, created_at DESC, id`,
      ).pluck(),

      putTargets: db.prepare(
        `INSERT OR REPLACE INTO impacted_targets (repo_key, pr_number, sha, all_targets, count, encoding, names, used_at, bytes)
         VALUES (@repoKey, @prNumber, @sha, @all, @count, @encoding, @names, @usedAt, @bytes)`,
      ),
      targetsOfRepoByUse: db.prepare(
        'SELECT pr_number AS prNumber, sha, bytes FROM impacted_targets WHERE repo_key = ? ORDER BY used_at, pr_number, sha',
      ),
      deleteTargets: db.prepare('DELETE FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?'),
      touchTargets: db.prepare('UPDATE impacted_targets SET used_at = ? WHERE repo_key = ? AND pr_number = ? AND sha = ? AND used_at < ?'),
      pruneTargets: db.prepare('DELETE FROM impacted_targets WHERE used_at < ?'),
      pruneEntries: db.prepare('DELETE FROM archived_entries WHERE state_changed_at < ?'),
      pruneRunPrs: db.prepare(
        'DELETE FROM archived_run_prs WHERE run_id IN (SELECT id FROM archived_runs WHERE COALESCE(finished_at, created_at) < ?)',
      ),
      pruneRuns: db.prepare('DELETE FROM archived_runs WHERE COALESCE(finished_at, created_at) < ?'),
      getTargets: db.prepare(
        'SELECT all_targets, count, encoding, names FROM impacted_targets WHERE repo_key = ? AND pr_number = ? AND sha = ?',
      ),

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

    this.commitTx = db.transaction((queue: QueueDoc, expectedVersion: number, archive: Archive | undefined): boolean => {
      for (const entry of archive?.entries ?? []) this.archiveEntry(entry);
      for (const run of archive?.runs ?? []) this.archiveRun(run);
      this.outbox.insertEvents(archive?.events);
      const { changes } = this.stmt.casQueue.run({
        id: queue.id,
        version: queue.version,
        expected: expectedVersion,
        doc: JSON.stringify(queue),
      });
      if (changes !== 1) {
        // Throwing rolls back the archive writes too: a failed commit changes nothing.
        throw new VersionConflict();
      }
      return true;
    });

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
    this.pruneHistoryTx = db.transaction((endedBefore: string) => {
      const entries = this.stmt.pruneEntries.run(endedBefore).changes;
      this.stmt.pruneRunPrs.run(endedBefore);
      const runs = this.stmt.pruneRuns.run(endedBefore).changes;
      return { entries, runs };
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

  // Queues

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    try {
      this.db.transaction(() => {
        this.stmt.insertQueue.run({
          id: queue.id,
          repoKey: queue.repoKey,
          branch: queue.branch,
          orgId: queue.orgId,
          version: queue.version,
          doc: JSON.stringify(queue),
        });
        this.outbox.insertEvents(events);
      }).immediate();
    } catch (err) {
      throw asConflict(err, `a queue exists for ${queue.repoKey} ${queue.branch}`);
    }
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return parse<QueueDoc>(this.stmt.queueByKey.get(repoKey, branch));
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return parse<QueueDoc>(this.stmt.queueById.get(id));
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    const { orgId, repoKey } = filter;
    if (orgId !== undefined && repoKey !== undefined) return parseAll(this.stmt.queuesByOrgAndRepo.all(orgId, repoKey));
    if (orgId !== undefined) return parseAll(this.stmt.queuesByOrg.all(orgId));
    if (repoKey !== undefined) return parseAll(this.stmt.queuesByRepo.all(repoKey));
    return parseAll(this.stmt.queuesAll.all());
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    assertNextVersion(queue, expectedVersion);
    try {
      return this.commitTx.immediate(queue, expectedVersion, archive);
    } catch (err) {
      if (err instanceof VersionConflict) return false;
      throw err;
    }
  }

  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    return this.db.transaction(() => {
      const deleted = this.stmt.casDeleteQueue.run(id, expectedVersion).changes === 1;
      if (deleted) this.outbox.insertEvents(events);
      return deleted;
    }).immediate();
  }

  // Archive

  private archiveEntry(entry: Entry): void {
    this.stmt.upsertEntry.run({
      id: entry.id,
      queueId: entry.queueId,
      prNumber: entry.prNumber,
      seq: entry.seq,
      stateChangedAt: entry.stateChangedAt,
      doc: JSON.stringify(entry),
    });
  }

  private archiveRun(run: TestRun): void {
    this.stmt.upsertRun.run({
      id: run.id,
      queueId: run.queueId,
      createdAt: run.createdAt,
      finishedAt: run.finishedAt,
      doc: JSON.stringify(run),
    });
    this.stmt.deleteRunPrs.run(run.id);
    for (const pr of run.prs) this.stmt.insertRunPr.run(run.id, run.queueId, pr.prNumber);
  }

  async latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    return parse<Entry>(this.stmt.latestEntry.get(queueId, prNumber));
  }

  async archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    if (queueIds.length === 0) return [];
    return parseAll<Entry>(this.stmt.entriesEndedSince.all(JSON.stringify(queueIds), since));
  }

  async archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    const params = { queueId, runId: filter.runId ?? null, finishedSince: filter.finishedSince ?? null };
    const rows =
      filter.prNumber === undefined
        ? this.stmt.runs.all(params)
        : this.stmt.runsOfPr.all({ ...params, prNumber: filter.prNumber });
    return parseAll<TestRun>(rows);
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

  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    return this.pruneHistoryTx.immediate(endedBefore);
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

class VersionConflict extends Error {}

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

function asConflict(err: unknown, message: string): unknown {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ? new ConflictError(message) : err;
}

function assertNextVersion(queue: QueueDoc, expectedVersion: number): void {
  if (queue.version !== expectedVersion + 1) {
    throw new Error(`commitQueue: queue.version must be ${expectedVersion + 1}, got ${queue.version}`);
  }
}

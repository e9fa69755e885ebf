import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, openStore, SQLITE_FILE } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { aQueue, aQueueWithEntries, aRun, aTestCase, aToken, anEndedEntry, anOrg, at } from './fixtures.js';

storeContract('sqlite (in memory)', () => openSqliteStore(':memory:'));

describe('sqlite store on a file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mergeq-store-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  storeContract('sqlite (file)', () => openSqliteStore(join(dir, SQLITE_FILE)), () => openSqliteStore(join(dir, SQLITE_FILE)));

  it('creates the data directory and keeps everything across a close and reopen', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const org = anOrg({ owners: ['github.com/acme'] });
    const token = aToken(org.id);
    const queue = aQueue({ orgId: org.id, version: 1 });
    const ended = anEndedEntry(queue.id, { prNumber: 4 });
    const run = aRun(queue.id, [4]);
    const testCase = aTestCase(queue.repoKey);
    const targets = Array.from({ length: 1000 }, (_, i) => `t${i}`);

    const first = await openStore({ dataDir });
    expect(first.kind).toBe('sqlite');
    await first.orgs.createOrg(org);
    await first.orgs.createToken(token);
    await first.orgs.revokeToken(token.id, at(1));
    await first.queues.insertQueue(queue);
    const committed = { ...queue, version: 2, state: 'paused' as const };
    expect(await first.queues.commitQueue(committed, 1, { entries: [ended], runs: [run] })).toBe(true);
    await first.targets.putImpactedTargets(queue.repoKey, 4, 'sha-4', { all: false, targets });
    await first.tests.upsertTestCase(testCase);
    const secret = await first.server.getOrCreateSecret('key', () => 'created-first');
    expect(await first.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(true);
    await first.close();

    const second = await openStore({ dataDir });
    expect(await second.orgs.findOrgByOwner('github.com/acme')).toEqual(org);
    expect(await second.orgs.findTokenByHash(token.hash)).toEqual({ ...token, revokedAt: at(1) });
    expect(await second.queues.getQueue(queue.repoKey, 'main')).toEqual(committed);
    expect(await second.queues.latestArchivedEntry(queue.id, 4)).toEqual(ended);
    expect(await second.queues.archivedRuns(queue.id, { prNumber: 4 })).toEqual([run]);
    expect(await second.targets.getImpactedTargets(queue.repoKey, 4, 'sha-4')).toEqual({ all: false, targets });
    expect(await second.tests.getTestCase(queue.repoKey, testCase.testCaseId)).toEqual(testCase);
    expect(await second.server.getOrCreateSecret('key', () => 'created-second')).toBe(secret);
    expect(await second.server.claimWebhookDelivery('delivery-1', at(2), at(0))).toBe(false);
    await second.close();
  });

  it('lets two stores on the same file see each other and agree on secrets', async () => {
    const path = join(dir, SQLITE_FILE);
    const a = await openSqliteStore(path);
    const b = await openSqliteStore(path);
    try {
      const [fromA, fromB] = await Promise.all([
        a.server.getOrCreateSecret('page-token-key', () => 'from-a'),
        b.server.getOrCreateSecret('page-token-key', () => 'from-b'),
      ]);
      expect(fromB).toBe(fromA);
      expect(await a.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(true);
      expect(await b.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(false);

      const queue = aQueue({ version: 1 });
      await a.queues.insertQueue(queue);
      expect(await b.queues.commitQueue({ ...queue, version: 2 }, 1)).toBe(true);
      expect(await a.queues.commitQueue({ ...queue, version: 2 }, 1)).toBe(false);
      expect((await a.queues.getQueueById(queue.id))?.version).toBe(2);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('adds the webhook deliveries table to a database made by the first schema version', async () => {
    const path = join(dir, SQLITE_FILE);
    await (await openSqliteStore(path)).close();
    const raw = new Database(path);
    raw.exec('DROP TABLE webhook_deliveries');
    // And what later versions added, so the file is what the first version made.
    undoQueueRowsMigration(raw);
    undoLeaseMigration(raw);
    undoFlakyTestMigration(raw);
    undoRetentionMigration(raw);
    raw.pragma('user_version = 1');
    raw.close();

    const store = await openSqliteStore(path);
    try {
      expect(await store.server.claimWebhookDelivery('delivery-1', at(1), at(0))).toBe(true);
      expect(await store.server.claimWebhookDelivery('delivery-1', at(2), at(0))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('adds the leases table to a database of schema version 4', async () => {
    const path = join(dir, SQLITE_FILE);
    await (await openSqliteStore(path)).close();
    const raw = new Database(path);
    undoQueueRowsMigration(raw);
    undoLeaseMigration(raw);
    raw.pragma('user_version = 4');
    raw.close();

    const store = await openSqliteStore(path);
    try {
      expect((await store.leases.takeLease('queue:a', 'one', 1, 30_001)).holder).toBe('one');
    } finally {
      await store.close();
    }
  });

  it('adds the flaky-test tables to a database of schema version 2, keeping its test cases', async () => {
    const path = join(dir, SQLITE_FILE);
    const flaky = aTestCase('github.com/acme/widgets', { status: 'flaky', quarantinedAt: at(1) });
    const first = await openSqliteStore(path);
    await first.tests.upsertTestCase(flaky);
    await first.close();
    const raw = new Database(path);
    undoQueueRowsMigration(raw);
    undoLeaseMigration(raw);
    undoFlakyTestMigration(raw);
    undoRetentionMigration(raw);
    raw.pragma('user_version = 2');
    raw.close();

    const store = await openSqliteStore(path);
    try {
      expect(await store.tests.testCaseCounts(['github.com/acme'])).toEqual([
        { repoKey: 'github.com/acme/widgets', flaky: 1, broken: 0, quarantined: 1 },
      ]);
    } finally {
      await store.close();
    }
  });

  it('moves the queue documents of a schema version 5 database into rows, keeping every entry, run and field', async () => {
    const path = join(dir, SQLITE_FILE);
    await (await openSqliteStore(path)).close();
    const queue = aQueueWithEntries(30, { version: 7, targetSha: 'abc' });
    queue.runs = [aRun(queue.id, [1, 2], { status: 'pending' }), aRun(queue.id, [3])];
    const other = aQueue({ branch: 'develop', version: 2 });
    const raw = new Database(path);
    undoQueueRowsMigration(raw);
    raw.pragma('user_version = 5');
    const insert = raw.prepare('INSERT INTO queues (id, repo_key, branch, org_id, version, doc) VALUES (?, ?, ?, ?, ?, ?)');
    for (const q of [queue, other]) insert.run(q.id, q.repoKey, q.branch, q.orgId, q.version, JSON.stringify(q));
    raw.close();

    const store = await openSqliteStore(path);
    try {
      expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
      expect(await store.queues.getQueue(other.repoKey, 'develop')).toEqual(other);
      const next = { ...queue, version: 8, entries: queue.entries.slice(1) };
      expect(await store.queues.commitQueue(next, 7)).toBe(true);
      const again = await openSqliteStore(path);
      expect(await again.queues.getQueueById(queue.id)).toEqual(next);
      await again.close();
    } finally {
      await store.close();
    }
  });

  it('rolls back the archive of a commit that lost the version race', async () => {
    const store = await openSqliteStore(join(dir, SQLITE_FILE));
    try {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      await store.queues.commitQueue({ ...queue, version: 2 }, 1);
      const ended = anEndedEntry(queue.id, { prNumber: 9 });
      expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1, { entries: [ended] })).toBe(false);
      expect(await store.queues.latestArchivedEntry(queue.id, 9)).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('reads and commits a queue of 1,000 entries, round after round', async () => {
    const store = await openSqliteStore(join(dir, SQLITE_FILE));
    try {
      const queue = aQueueWithEntries(1000, { version: 1 });
      await store.queues.insertQueue(queue);
      let current = queue;
      for (let i = 0; i < 21; i++) {
        const loaded = (await store.queues.getQueue(current.repoKey, current.branch))!;
        const next = { ...loaded, version: loaded.version + 1, updatedAt: at(i) };
        expect(await store.queues.commitQueue(next, loaded.version)).toBe(true);
        current = next;
      }
      expect(await store.queues.getQueueById(queue.id)).toEqual(current);
    } finally {
      await store.close();
    }
  });
});

/** Takes a database back to before migration 6 (entries, runs and units as rows). */
function undoQueueRowsMigration(raw: Database.Database): void {
  raw.exec('DROP TABLE queue_entries; DROP TABLE queue_runs; DROP TABLE queue_units;');
}

/** Takes a database back to before migration 3 (flaky-test tables). */
function undoFlakyTestMigration(raw: Database.Database): void {
  raw.exec(`
    DROP TABLE test_uploads; DROP TABLE test_results; DROP TABLE test_case_events; DROP TABLE flaky_settings;
    DROP INDEX test_cases_to_watch;
    ALTER TABLE test_cases DROP COLUMN status; ALTER TABLE test_cases DROP COLUMN last_failed_at;
  `);
}

/** Takes a database back to before migration 4 (retention columns and indexes). */
function undoRetentionMigration(raw: Database.Database): void {
  raw.exec(`DROP INDEX impacted_targets_by_use; DROP INDEX impacted_targets_by_repo_use;
    DROP INDEX archived_runs_by_finish; DROP INDEX archived_entries_by_change;
    ALTER TABLE impacted_targets DROP COLUMN used_at; ALTER TABLE impacted_targets DROP COLUMN bytes;`);
}

function undoLeaseMigration(raw: Database.Database): void {
  raw.exec('DROP TABLE leases');
}

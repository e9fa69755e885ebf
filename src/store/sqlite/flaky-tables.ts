import type Database from 'better-sqlite3';
import { testCaseOutboxEvents } from '../../events/test-case-events.js';
import { byTestCaseIdInTurns, turnLoop } from './in-turns.js';
import type { SqliteOutboxTable } from './outbox-table.js';
import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import type { TestCase } from '../../domain/quarantine.js';
import { LOST, type TestCaseCounts, type TestCaseStore, type TestUploadWrite } from '../store.js';
import { parseDoc, parseDocs } from './json-docs.js';
import { resultOf, type ResultRow } from './result-rows.js';
import { allStillAsRead, fieldsHold } from '../fields-hold.js';

/** Rows (results, test cases, events) written per transaction of a large upload: a few ms each. */
export const ROWS_PER_TRANSACTION = 100;

/** Test cases and the rest of the flaky-test data (tables of migration 3). */
export class SqliteFlakyTables implements TestCaseStore {
  private readonly stmt;
  private readonly commitTx;
  private readonly writeTx;
  private readonly insertResultsTx;

  constructor(
    private readonly db: Database.Database,
    private readonly outbox: Pick<SqliteOutboxTable, 'insertEvents'>,
  ) {
    this.stmt = {
      upload: db.prepare('SELECT doc FROM test_uploads WHERE repo_key = ? AND upload_id = ?').pluck(),
      insertUpload: db.prepare('INSERT OR IGNORE INTO test_uploads (repo_key, upload_id, doc) VALUES (?, ?, ?)'),
      insertResult: db.prepare(
        `INSERT INTO test_results (repo_key, test_case_id, upload_id, commit_sha, branch, outcome, failed_attempts, passed_attempts, at, ignored)
         VALUES (@repoKey, @testCaseId, @uploadId, @commitSha, @branch, @outcome, @failedAttempts, @passedAttempts, @at, @ignored)`,
      ),
      pruneResults: db.prepare('DELETE FROM test_results WHERE repo_key = ? AND at < ?'),
      upsertCase: db.prepare(
        `INSERT OR REPLACE INTO test_cases (repo_key, test_case_id, quarantined_at, status, last_failed_at, doc)
         VALUES (@repoKey, @testCaseId, @quarantinedAt, @status, @lastFailedAt, @doc)`,
      ),
      casesByIds: db.prepare('SELECT doc FROM test_cases WHERE repo_key = ? AND test_case_id IN (SELECT value FROM json_each(?))').pluck(),
      existingIds: db.prepare('SELECT test_case_id FROM test_cases WHERE repo_key = ? AND test_case_id IN (SELECT value FROM json_each(?))').pluck(),
      casesToWatch: db.prepare(
        `SELECT doc FROM test_cases WHERE repo_key = ?
           AND (status <> 'healthy' OR quarantined_at IS NOT NULL OR last_failed_at >= ?)`,
      ).pluck(),
      insertEvent: db.prepare('INSERT INTO test_case_events (repo_key, test_case_id, doc) VALUES (?, ?, ?)'),
      events: db.prepare('SELECT doc FROM test_case_events WHERE repo_key = ? AND test_case_id = ? ORDER BY seq').pluck(),
      results: db.prepare(
        `SELECT * FROM test_results WHERE repo_key = ? AND test_case_id IN (SELECT value FROM json_each(?)) AND at >= ?
         ORDER BY at, seq`,
      ),
      // The flaky events of single commits (usable results with a failed and a passed attempt), the
      // latest `flakyCommits` of each test case: what latestFlakyCommits picks.
      detectionResults: db.prepare(
        `WITH flaky AS (
           SELECT test_case_id, commit_sha, max(at) AS last FROM test_results
           WHERE repo_key = @repoKey AND test_case_id IN (SELECT value FROM json_each(@ids)) AND at >= @since
             AND ignored = 0 AND outcome <> 'skipped'
           GROUP BY test_case_id, commit_sha
           HAVING max(failed_attempts) > 0 AND max(passed_attempts) > 0 AND max(at) <= @until),
         latest AS (
           SELECT test_case_id, commit_sha FROM (
             SELECT test_case_id, commit_sha, row_number() OVER (PARTITION BY test_case_id ORDER BY last DESC) AS n FROM flaky)
           WHERE n <= @flakyCommits)
         SELECT * FROM test_results WHERE repo_key = @repoKey AND test_case_id IN (SELECT value FROM json_each(@ids)) AND at >= @since
           AND (commit_sha = @commitSha OR branch IN (SELECT value FROM json_each(@targets))
                OR (test_case_id, commit_sha) IN (SELECT test_case_id, commit_sha FROM latest))
         ORDER BY at, seq`,
      ),
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
      settings: db.prepare('SELECT doc FROM flaky_settings WHERE repo_key = ?').pluck(),
      putSettings: db.prepare('INSERT OR REPLACE INTO flaky_settings (repo_key, doc) VALUES (?, ?)'),
      counts: db.prepare(
        `SELECT repo_key AS repoKey,
                sum(status = 'flaky') AS flaky, sum(status = 'broken') AS broken, count(quarantined_at) AS quarantined
         FROM test_cases
         -- "host/owner/" up to "host/owner0": the keys below that owner ('0' follows '/'), by the index.
         WHERE EXISTS (SELECT 1 FROM json_each(?) o WHERE repo_key > o.value || '/' AND repo_key < o.value || '0')
         GROUP BY repo_key ORDER BY repo_key`,
      ),
    };

    this.writeTx = db.transaction((cases: TestCase[], events: TestCaseEvent[], orgId: string | undefined) => {
      for (const tc of cases) this.upsertCase(tc);
      for (const e of events) this.stmt.insertEvent.run(e.repoKey, e.testCaseId, JSON.stringify(e));
      this.outbox.insertEvents(testCaseOutboxEvents(events, cases, orgId));
    });

    this.insertResultsTx = db.transaction((results: TestResult[]) => {
      for (const r of results) this.stmt.insertResult.run({ ...r, ignored: r.ignoredForDetection ? 1 : 0 });
    });

    this.commitTx = db.transaction((w: TestUploadWrite): boolean | typeof LOST => {
      const { upload } = w;
      if (this.stmt.upload.get(upload.repoKey, upload.uploadId) !== undefined) return false;
      if (!this.stillAsRead(w)) return LOST;
      if (this.stmt.insertUpload.run(upload.repoKey, upload.uploadId, JSON.stringify(upload)).changes !== 1) return false;
      this.stmt.pruneResults.run(upload.repoKey, w.keepResultsSince);
      this.insertResultsTx(w.results);
      this.writeTx(w.testCases, w.events, w.orgId);
      return true;
    });
  }

  /**
   * A large upload in transactions of ROWS_PER_TRANSACTION rows, letting the event loop turn between
   * them (one transaction of 100,000 rows holds it for seconds): its results, then its test cases
   * each with its events, then its upload row — the mark that it is stored, after which a repeated
   * uploadId is a no-op. A crash in between leaves part of its results, and the client's retry
   * writes them again; two processes storing one uploadId at once may both write its rows.
   *
   * Rows go in test case id order: the indexes keyed by test case id then take each slice's rows
   * in a few neighbouring pages, where ids in upload order (random UUIDs) dirty a page per row
   * and index (20,000 newly flaky tests wrote 535 MB to the WAL in upload order, 308 MB sorted).
   */
  private async commitInSlices(w: TestUploadWrite): Promise<boolean | typeof LOST> {
    const { upload } = w;
    if (this.stmt.upload.get(upload.repoKey, upload.uploadId) !== undefined) return false;
    // Checked before the first slice only: a change landing while the slices are written is written over.
    if (!this.stillAsRead(w)) return LOST;
    this.stmt.pruneResults.run(upload.repoKey, w.keepResultsSince);
    const results = await byTestCaseIdInTurns(w.results);
    for (let at = 0; at < results.length; at += ROWS_PER_TRANSACTION) {
      await turnLoop();
      this.insertResultsTx.immediate(results.slice(at, at + ROWS_PER_TRANSACTION));
    }
    await turnLoop();
    const testCases = await byTestCaseIdInTurns(w.testCases);
    const eventsOf = new Map<string, TestCaseEvent[]>();
    for (const e of w.events) {
      const list = eventsOf.get(e.testCaseId);
      if (list) list.push(e);
      else eventsOf.set(e.testCaseId, [e]);
    }
    let cases: TestCase[] = [];
    let events: TestCaseEvent[] = [];
    for (const [i, tc] of testCases.entries()) {
      cases.push(tc);
      events.push(...(eventsOf.get(tc.testCaseId) ?? []));
      eventsOf.delete(tc.testCaseId);
      // The events of a test case written without it, if any, go with the last slice.
      if (i === testCases.length - 1) events.push(...[...eventsOf.values()].flat());
      if (cases.length + events.length < ROWS_PER_TRANSACTION && i < testCases.length - 1) continue;
      await turnLoop();
      this.writeTx.immediate(cases, events, w.orgId);
      cases = [];
      events = [];
    }
    await turnLoop();
    return this.stmt.insertUpload.run(upload.repoKey, upload.uploadId, JSON.stringify(upload)).changes === 1;
  }

  private stillAsRead(w: TestUploadWrite): boolean {
    return allStillAsRead(w.asRead, (tc) => parseDoc<TestCase>(this.stmt.testCase.get(tc.repoKey, tc.testCaseId)));
  }

  private upsertCase(tc: TestCase): void {
    this.stmt.upsertCase.run({
      repoKey: tc.repoKey,
      testCaseId: tc.testCaseId,
      quarantinedAt: tc.quarantinedAt,
      status: tc.status,
      lastFailedAt: tc.lastFailedAt ?? null,
      doc: JSON.stringify(tc),
    });
  }

  async getTestUpload(repoKey: string, uploadId: string): Promise<TestUpload | null> {
    return parseDoc<TestUpload>(this.stmt.upload.get(repoKey, uploadId));
  }

  async commitTestUpload(write: TestUploadWrite): Promise<boolean | typeof LOST> {
    const rows = write.results.length + write.testCases.length + write.events.length;
    return rows <= ROWS_PER_TRANSACTION ? this.commitTx.immediate(write) : this.commitInSlices(write);
  }

  async getTestCases(repoKey: string, testCaseIds: string[]): Promise<TestCase[]> {
    if (testCaseIds.length === 0) return [];
    return parseDocs<TestCase>(this.stmt.casesByIds.all(repoKey, JSON.stringify(testCaseIds)));
  }

  async existingTestCaseIds(repoKey: string, testCaseIds: string[]): Promise<string[]> {
    if (testCaseIds.length === 0) return [];
    return this.stmt.existingIds.all(repoKey, JSON.stringify(testCaseIds)) as string[];
  }

  async testCasesToWatch(repoKey: string, failedSince: string): Promise<TestCase[]> {
    return parseDocs<TestCase>(this.stmt.casesToWatch.all(repoKey, failedSince));
  }

  async writeTestCases(testCases: TestCase[], events: TestCaseEvent[], orgId?: string): Promise<void> {
    this.writeTx.immediate(testCases, events, orgId);
  }

  async updateTestCase(expected: TestCase, next: TestCase, events: TestCaseEvent[], orgId?: string): Promise<boolean> {
    return this.db.transaction(() => {
      const stored = parseDoc<TestCase>(this.stmt.testCase.get(expected.repoKey, expected.testCaseId));
      if (!stored || !fieldsHold(stored, expected)) return false;
      this.writeTx([next], events, orgId);
      return true;
    }).immediate();
  }

  async testResults(repoKey: string, testCaseIds: string[], since: string): Promise<TestResult[]> {
    if (testCaseIds.length === 0) return [];
    return (this.stmt.results.all(repoKey, JSON.stringify(testCaseIds), since) as ResultRow[]).map(resultOf);
  }

  async detectionResults(repoKey: string, testCaseIds: string[], since: string, scope: DetectionScope): Promise<TestResult[]> {
    if (testCaseIds.length === 0) return [];
    const params = {
      repoKey,
      ids: JSON.stringify(testCaseIds),
      since,
      commitSha: scope.commitSha,
      targets: JSON.stringify(scope.targetBranches),
      flakyCommits: scope.flakyCommits,
      until: scope.until,
    };
    return (this.stmt.detectionResults.all(params) as ResultRow[]).map(resultOf);
  }

  async testCaseEvents(repoKey: string, testCaseId: string): Promise<TestCaseEvent[]> {
    return parseDocs<TestCaseEvent>(this.stmt.events.all(repoKey, testCaseId));
  }

  async getFlakySettings(repoKey: string): Promise<FlakySettings | null> {
    return parseDoc<FlakySettings>(this.stmt.settings.get(repoKey));
  }

  async updateFlakySettings(repoKey: string, expected: FlakySettings | null, next: FlakySettings): Promise<boolean> {
    return this.db.transaction(() => {
      const stored = parseDoc<FlakySettings>(this.stmt.settings.get(repoKey));
      if (expected === null ? stored !== null : stored === null || !fieldsHold(stored, expected)) return false;
      this.stmt.putSettings.run(repoKey, JSON.stringify(next));
      return true;
    }).immediate();
  }

  async putFlakySettings(repoKey: string, settings: FlakySettings): Promise<void> {
    this.stmt.putSettings.run(repoKey, JSON.stringify(settings));
  }

  async upsertTestCase(testCase: TestCase): Promise<void> {
    await this.writeTestCases([testCase], []);
  }

  async getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null> {
    return parseDoc<TestCase>(this.stmt.testCase.get(repoKey, testCaseId));
  }

  async listQuarantinedTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    return this.db.transaction(() => ({
      rows: parseDocs<TestCase>(this.stmt.quarantined.all(repoKey, page.limit, page.offset)),
      total: this.stmt.quarantinedCount.get(repoKey) as number,
    }))();
  }

  async listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    return this.db.transaction(() => ({
      rows: parseDocs<TestCase>(this.stmt.flaky.all(repoKey, page.limit, page.offset)),
      total: this.stmt.flakyCount.get(repoKey) as number,
    }))();
  }

  async testCaseCounts(ownerKeys: string[]): Promise<TestCaseCounts[]> {
    if (ownerKeys.length === 0) return [];
    return this.stmt.counts.all(JSON.stringify(ownerKeys)) as TestCaseCounts[];
  }
}

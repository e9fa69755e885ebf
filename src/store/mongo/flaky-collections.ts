import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import { testCaseOutboxEvents } from '../../events/test-case-events.js';
import type { MongoOutbox } from './outbox-collection.js';
import type { MongoCounters } from './counters.js';
import { fieldsFilter, findOne, isDuplicateKey, retryOnDuplicate } from './collection-ops.js';
import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../../domain/flaky.js';
import type { TestCase } from '../../domain/quarantine.js';
import { LOST, type TestCaseCounts, type TestCaseStore, type TestUploadWrite } from '../store.js';
import { allStillAsRead } from '../fields-hold.js';
import { claimUpload, completeUpload, giveClaimBack, readUpload, type StoredUpload } from './upload-claims.js';

type StoredResult = TestResult & { seq: number };
type StoredEvent = TestCaseEvent & { seq: number };
type StoredSettings = FlakySettings & { repoKey: string };

const NO_ID = { projection: { _id: 0 } } as const;
/** Test cases read at once when an upload checks the ones it decided on. */
const READ_BATCH = 500;

/**
 * Test cases and the rest of the flaky-test data. Single-document writes only (no transactions); results
 * and events are numbered by counters (counters.ts), so ties keep their insertion order.
 */
export class MongoFlakyCollections implements TestCaseStore {
  private readonly uploads: Collection<StoredUpload>;
  private readonly results: Collection<StoredResult>;
  private readonly cases: Collection<TestCase>;
  private readonly events: Collection<StoredEvent>;
  private readonly settings: Collection<StoredSettings>;

  constructor(
    db: Db,
    private readonly outbox: Pick<MongoOutbox, 'insertEvents'>,
    private readonly counters: MongoCounters,
  ) {
    this.uploads = db.collection('test_uploads');
    this.results = db.collection('test_results');
    this.cases = db.collection('test_cases');
    this.events = db.collection('test_case_events');
    this.settings = db.collection('flaky_settings');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.uploads.createIndexes([{ key: { repoKey: 1, uploadId: 1 }, unique: true }]),
      this.results.createIndexes([
        { key: { repoKey: 1, uploadId: 1, testCaseId: 1 }, unique: true },
        { key: { repoKey: 1, testCaseId: 1, at: 1 } },
        { key: { repoKey: 1, at: 1 } },
      ]),
      this.cases.createIndexes([
        { key: { repoKey: 1, testCaseId: 1 }, unique: true },
        { key: { repoKey: 1, quarantinedAt: -1, testCaseId: 1 } },
        { key: { repoKey: 1, statusLastUpdatedAt: -1, testCaseId: 1 } },
        { key: { repoKey: 1, status: 1 } },
        { key: { repoKey: 1, lastFailedAt: 1 } },
      ]),
      this.events.createIndexes([{ key: { repoKey: 1, testCaseId: 1, seq: 1 } }]),
      this.settings.createIndexes([{ key: { repoKey: 1 }, unique: true }]),
    ]);
  }

  async getTestUpload(repoKey: string, uploadId: string): Promise<TestUpload | null> {
    return readUpload(this.uploads, repoKey, uploadId);
  }

  /** Claimed first, written, then marked complete (upload-claims.ts): of two identical uploads at once, one writes. */
  async commitTestUpload(w: TestUploadWrite): Promise<boolean | typeof LOST> {
    const { repoKey } = w.upload;
    if (!(await claimUpload(this.uploads, w.upload))) return false;
    try {
      // Checked once claimed, before anything is written: a change landing in between is written over.
      if (!(await this.stillAsRead(w.asRead ?? []))) {
        await giveClaimBack(this.uploads, w.upload);
        return LOST;
      }
      await this.results.deleteMany({ repoKey, at: { $lt: w.keepResultsSince } });
      if (w.results.length > 0) {
        const first = await this.counters.reserve('test_results', w.results.length);
        const ops: AnyBulkWriteOperation<StoredResult>[] = w.results.map((r, i) => ({
          replaceOne: {
            filter: { repoKey: r.repoKey, uploadId: r.uploadId, testCaseId: r.testCaseId },
            replacement: { ...r, seq: first + i },
            upsert: true,
          },
        }));
        await retryOnDuplicate(() => this.results.bulkWrite(ops, { ordered: false }));
      }
      await this.writeTestCases(w.testCases, w.events, w.orgId);
    } catch (err) {
      await giveClaimBack(this.uploads, w.upload).catch(() => undefined);
      throw err;
    }
    await completeUpload(this.uploads, w.upload);
    return true;
  }

  private async stillAsRead(asRead: TestCase[]): Promise<boolean> {
    for (let at = 0; at < asRead.length; at += READ_BATCH) {
      const batch = asRead.slice(at, at + READ_BATCH);
      const stored = new Map((await this.getTestCases(batch[0]!.repoKey, batch.map((tc) => tc.testCaseId))).map((tc) => [tc.testCaseId, tc]));
      if (!allStillAsRead(batch, (tc) => stored.get(tc.testCaseId))) return false;
    }
    return true;
  }

  async getTestCases(repoKey: string, testCaseIds: string[]): Promise<TestCase[]> {
    if (testCaseIds.length === 0) return [];
    return (await this.cases.find({ repoKey, testCaseId: { $in: testCaseIds } }, NO_ID).toArray()) as TestCase[];
  }

  async existingTestCaseIds(repoKey: string, testCaseIds: string[]): Promise<string[]> {
    if (testCaseIds.length === 0) return [];
    const rows = await this.cases.find({ repoKey, testCaseId: { $in: testCaseIds } }, { projection: { _id: 0, testCaseId: 1 } }).toArray();
    return rows.map((r) => r.testCaseId);
  }

  async testCasesToWatch(repoKey: string, failedSince: string): Promise<TestCase[]> {
    const filter = { repoKey, $or: [{ status: { $ne: 'healthy' as const } }, { quarantinedAt: { $ne: null } }, { lastFailedAt: { $gte: failedSince } }] };
    return (await this.cases.find(filter, NO_ID).toArray()) as TestCase[];
  }

  /** The test case first, under its condition; its events only once it is written. */
  async updateTestCase(expected: TestCase, next: TestCase, events: TestCaseEvent[], orgId?: string): Promise<boolean> {
    const filter = { ...fieldsFilter(expected), repoKey: expected.repoKey, testCaseId: expected.testCaseId };
    if ((await this.cases.replaceOne(filter, { ...next })).matchedCount !== 1) return false;
    await this.writeEvents(events, [next], orgId);
    return true;
  }

  async writeTestCases(testCases: TestCase[], events: TestCaseEvent[], orgId?: string): Promise<void> {
    if (testCases.length > 0) {
      const ops: AnyBulkWriteOperation<TestCase>[] = testCases.map((tc) => ({
        replaceOne: { filter: { repoKey: tc.repoKey, testCaseId: tc.testCaseId }, replacement: { ...tc }, upsert: true },
      }));
      await this.cases.bulkWrite(ops, { ordered: false });
    }
    await this.writeEvents(events, testCases, orgId);
  }

  private async writeEvents(events: TestCaseEvent[], testCases: TestCase[], orgId: string | undefined): Promise<void> {
    if (events.length > 0) {
      const first = await this.counters.reserve('test_case_events', events.length);
      const ops: AnyBulkWriteOperation<StoredEvent>[] = events.map((e, i) => ({
        updateOne: { filter: { ...e }, update: { $setOnInsert: { seq: first + i } }, upsert: true },
      }));
      await retryOnDuplicate(() => this.events.bulkWrite(ops, { ordered: false }));
      await this.outbox.insertEvents(testCaseOutboxEvents(events, testCases, orgId));
    }
  }

  async testResults(repoKey: string, testCaseIds: string[], since: string): Promise<TestResult[]> {
    if (testCaseIds.length === 0) return [];
    const rows = await this.results
      .find({ repoKey, testCaseId: { $in: testCaseIds }, at: { $gte: since } }, { projection: { _id: 0, seq: 0 }, sort: { at: 1, seq: 1 }, allowDiskUse: true })
      .toArray();
    return rows as TestResult[];
  }

  async detectionResults(repoKey: string, testCaseIds: string[], since: string, scope: DetectionScope): Promise<TestResult[]> {
    if (testCaseIds.length === 0) return [];
    const base = { repoKey, testCaseId: { $in: testCaseIds }, at: { $gte: since } };
    // The latest flaky events of single commits per test case, as latestFlakyCommits picks them.
    const latest = await this.results
      .aggregate<{ _id: string; commits: string[] }>([
        { $match: { ...base, ignoredForDetection: false, outcome: { $ne: 'skipped' } } },
        { $group: { _id: { t: '$testCaseId', c: '$commitSha' }, last: { $max: '$at' }, failed: { $max: '$failedAttempts' }, passed: { $max: '$passedAttempts' } } },
        { $match: { failed: { $gt: 0 }, passed: { $gt: 0 }, last: { $lte: scope.until } } },
        { $sort: { last: -1 } },
        { $group: { _id: '$_id.t', commits: { $push: '$_id.c' } } },
        { $project: { commits: { $slice: ['$commits', scope.flakyCommits] } } },
      ])
      .toArray();
    const picked = new Set(latest.flatMap((l) => l.commits.map((c) => `${l._id}\n${c}`)));
    const shas = [...new Set([scope.commitSha, ...latest.flatMap((l) => l.commits)])];
    const rows = await this.results
      .find({ ...base, $or: [{ branch: { $in: scope.targetBranches } }, { commitSha: { $in: shas } }] }, { projection: { _id: 0, seq: 0 }, sort: { at: 1, seq: 1 }, allowDiskUse: true })
      .toArray();
    // A commit picked for one test case brings only that test case's results on it.
    return (rows as TestResult[]).filter(
      (r) => r.commitSha === scope.commitSha || (r.branch !== null && scope.targetBranches.includes(r.branch)) || picked.has(`${r.testCaseId}\n${r.commitSha}`),
    );
  }

  async testCaseEvents(repoKey: string, testCaseId: string): Promise<TestCaseEvent[]> {
    const rows = await this.events.find({ repoKey, testCaseId }, { projection: { _id: 0, seq: 0 }, sort: { seq: 1 } }).toArray();
    return rows as TestCaseEvent[];
  }

  async getFlakySettings(repoKey: string): Promise<FlakySettings | null> {
    const doc = await this.settings.findOne({ repoKey }, { projection: { _id: 0, repoKey: 0 } });
    return doc as FlakySettings | null;
  }

  async updateFlakySettings(repoKey: string, expected: FlakySettings | null, next: FlakySettings): Promise<boolean> {
    if (expected === null) {
      try {
        await this.settings.insertOne({ ...next, repoKey });
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    }
    const { matchedCount } = await this.settings.replaceOne({ ...fieldsFilter(expected), repoKey }, { ...next, repoKey });
    return matchedCount === 1;
  }

  async putFlakySettings(repoKey: string, settings: FlakySettings): Promise<void> {
    await this.settings.replaceOne({ repoKey }, { ...settings, repoKey }, { upsert: true });
  }

  async upsertTestCase(testCase: TestCase): Promise<void> {
    const { repoKey, testCaseId } = testCase;
    await retryOnDuplicate(() => this.cases.replaceOne({ repoKey, testCaseId }, { ...testCase }, { upsert: true }));
  }

  async getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null> {
    return findOne(this.cases, { repoKey, testCaseId });
  }

  listQuarantinedTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    return this.testCasePage({ repoKey, quarantinedAt: { $ne: null } }, { quarantinedAt: -1, testCaseId: 1 }, page);
  }

  listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const query: Filter<TestCase> = { repoKey, $or: [{ status: { $ne: 'healthy' } }, { quarantinedAt: { $ne: null } }] };
    return this.testCasePage(query, { statusLastUpdatedAt: -1, testCaseId: 1 }, page);
  }

  private async testCasePage(query: Filter<TestCase>, sort: Record<string, 1 | -1>, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }> {
    const rows = page.limit > 0 ? this.cases.find(query, { projection: { _id: 0 }, sort }).skip(page.offset).limit(page.limit).toArray() : Promise.resolve([]);
    const [found, total] = await Promise.all([rows, this.cases.countDocuments(query)]);
    return { rows: found as TestCase[], total };
  }

  async testCaseCounts(ownerKeys: string[]): Promise<TestCaseCounts[]> {
    if (ownerKeys.length === 0) return [];
    const prefixes = ownerKeys.map((o) => new RegExp(`^${o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
    const rows = await this.cases
      .aggregate<TestCaseCounts>([
        { $match: { repoKey: { $in: prefixes } } },
        {
          $group: {
            _id: '$repoKey',
            flaky: { $sum: { $cond: [{ $eq: ['$status', 'flaky'] }, 1, 0] } },
            broken: { $sum: { $cond: [{ $eq: ['$status', 'broken'] }, 1, 0] } },
            quarantined: { $sum: { $cond: [{ $ne: [{ $ifNull: ['$quarantinedAt', null] }, null] }, 1, 0] } },
          },
        },
        { $project: { _id: 0, repoKey: '$_id', flaky: 1, broken: 1, quarantined: 1 } },
        { $sort: { repoKey: 1 } },
      ])
      .toArray();
    return rows;
  }
}

import { DEFAULT_FLAKY_SETTINGS, type TestCaseEvent, type TestResult, type TestUpload } from '../../src/domain/flaky.js';
import type { Store } from '../../src/store/store.js';
import { aTestCase, at } from './fixtures.js';


const REPO = 'github.com/acme/widgets';

function anUpload(uploadId: string, minutes = 0): TestUpload {
  return {
    repoKey: REPO,
    uploadId,
    commitSha: 'c1',
    branch: 'main',
    prNumber: null,
    jobName: null,
    variant: null,
    at: at(minutes),
    answer: {
      uploadId,
      commitSha: 'c1',
      tests: 1,
      failed: 0,
      skipped: 0,
      quarantinedFailures: 0,
      newlyFlaky: [],
      ignoredForDetection: false,
      quarantinedFailedTests: [],
      truncatedNames: 0,
    },
  };
}

function aResult(uploadId: string, testCaseId: string, minutes: number, outcome: TestResult['outcome'] = 'passed'): TestResult {
  return {
    repoKey: REPO,
    testCaseId,
    uploadId,
    commitSha: 'c1',
    branch: 'main',
    outcome,
    failedAttempts: outcome === 'failed' ? 1 : 0,
    passedAttempts: outcome === 'passed' ? 1 : 0,
    at: at(minutes),
    ignoredForDetection: false,
  };
}

/** Test cases and the rest of the flaky-test data (called inside each adapter's contract suite, contract.ts). */
export function testCaseContract(open: () => Store): void {
  let store: Store;
  beforeEach(() => {
    store = open();
  });

  describe('flaky-test data', () => {

    it('stores an upload with its results, cases and events; a repeated uploadId writes nothing', async () => {
      const tc = aTestCase(REPO, { status: 'flaky', quarantinedAt: at(1), lastFailedAt: at(1) });
      const event: TestCaseEvent = { kind: 'status', repoKey: REPO, testCaseId: tc.testCaseId, at: at(1), from: 'healthy', to: 'flaky', evidence: { commits: ['c1'], uploads: ['u1'] } };
      const write = { upload: anUpload('u1'), results: [aResult('u1', tc.testCaseId, 1)], testCases: [tc], events: [event], keepResultsSince: at(-100) };
      expect(await store.tests.commitTestUpload(write)).toBe(true);
      expect(await store.tests.getTestUpload(REPO, 'u1')).toEqual(write.upload);
      expect(await store.tests.getTestUpload('github.com/acme/other', 'u1')).toBeNull();

      const again = { ...write, results: [aResult('u1', tc.testCaseId, 2, 'failed')], testCases: [{ ...tc, status: 'broken' as const }] };
      expect(await store.tests.commitTestUpload(again)).toBe(false);
      expect(await store.tests.testResults(REPO, [tc.testCaseId], at(-100))).toEqual(write.results);
      expect(await store.tests.getTestCase(REPO, tc.testCaseId)).toEqual(tc);
      expect(await store.tests.testCaseEvents(REPO, tc.testCaseId)).toEqual([event]);
    });

    it('an upload interrupted after its claim is stored whole or not at all', async () => {
      const tc = aTestCase(REPO, { status: 'flaky', quarantinedAt: at(1), lastFailedAt: at(1) });
      const event: TestCaseEvent = { kind: 'status', repoKey: REPO, testCaseId: tc.testCaseId, at: at(1), from: 'healthy', to: 'flaky', evidence: { commits: ['c1'], uploads: ['u1'] } };
      const write = { upload: anUpload('u1'), results: [aResult('u1', tc.testCaseId, 1)], testCases: [tc], events: [event], keepResultsSince: at(-100) };
      // The write fails while its events are read, after the upload, its results and test cases.
      const unreadable = Object.defineProperty({ ...event }, 'at', {
        enumerable: true,
        get: () => {
          throw new Error('connection lost');
        },
      });
      await expect(store.tests.commitTestUpload({ ...write, events: [unreadable] })).rejects.toThrow('connection lost');
      // No answer was stored, so the client's retry is not refused, and it stores everything once.
      expect(await store.tests.getTestUpload(REPO, 'u1')).toBeNull();
      expect(await store.tests.commitTestUpload(write)).toBe(true);
      expect(await store.tests.getTestUpload(REPO, 'u1')).toEqual(write.upload);
      expect(await store.tests.testResults(REPO, [tc.testCaseId], at(-100))).toEqual(write.results);
      expect(await store.tests.getTestCase(REPO, tc.testCaseId)).toEqual(tc);
      expect(await store.tests.testCaseEvents(REPO, tc.testCaseId)).toEqual([event]);
    });

    it('stores a large upload whole (the SQLite store writes it in several transactions); repeated, it writes nothing', async () => {
      const cases = Array.from({ length: 300 }, (_, i) => aTestCase(REPO, { testCaseId: `case-${i}`, status: 'flaky', quarantinedAt: at(1), lastFailedAt: at(1) }));
      const events: TestCaseEvent[] = cases.map((tc) => ({ kind: 'quarantine', repoKey: REPO, testCaseId: tc.testCaseId, at: at(1), quarantined: true }));
      const results = cases.map((tc) => aResult('big', tc.testCaseId, 1));
      const write = { upload: anUpload('big'), results, testCases: cases, events, keepResultsSince: at(-100) };
      expect(await store.tests.commitTestUpload(write)).toBe(true);
      expect(await store.tests.commitTestUpload({ ...write, results: results.map((r) => ({ ...r, outcome: 'failed' as const })) })).toBe(false);
      const ids = cases.map((tc) => tc.testCaseId);
      expect(await store.tests.getTestUpload(REPO, 'big')).toEqual(write.upload);
      // Results of one instant are in insertion order per test case; across test cases a store may order them as it writes them.
      const byId = (a: { testCaseId: string }, b: { testCaseId: string }) => a.testCaseId.localeCompare(b.testCaseId);
      expect((await store.tests.testResults(REPO, ids, at(-100))).sort(byId)).toEqual([...results].sort(byId));
      expect(await store.tests.getTestCases(REPO, ids)).toEqual(expect.arrayContaining(cases));
      expect(await store.tests.testCaseEvents(REPO, 'case-299')).toEqual([events[299]]);
    });

    it('reads results since a time, oldest first, and drops results older than keepResultsSince', async () => {
      await store.tests.commitTestUpload({ upload: anUpload('u1'), results: [aResult('u1', 'a', 1), aResult('u1', 'b', 1)], testCases: [], events: [], keepResultsSince: at(0) });
      await store.tests.commitTestUpload({ upload: anUpload('u2'), results: [aResult('u2', 'a', 5, 'failed')], testCases: [], events: [], keepResultsSince: at(0) });
      expect((await store.tests.testResults(REPO, ['a'], at(0))).map((r) => r.uploadId)).toEqual(['u1', 'u2']);
      expect((await store.tests.testResults(REPO, ['a', 'b'], at(2))).map((r) => r.uploadId)).toEqual(['u2']);
      await store.tests.commitTestUpload({ upload: anUpload('u3'), results: [], testCases: [], events: [], keepResultsSince: at(3) });
      expect((await store.tests.testResults(REPO, ['a', 'b'], at(0))).map((r) => r.uploadId)).toEqual(['u2']);
    });

    it('detection results: target-branch results, those on the upload commit, and those on the latest commits where the test failed and passed', async () => {
      const r = (uploadId: string, testCaseId: string, minutes: number, commitSha: string, branch: string, outcome: TestResult['outcome'] = 'passed') => ({
        ...aResult(uploadId, testCaseId, minutes, outcome),
        commitSha,
        branch,
      });
      const results = [
        r('u1', 'a', 1, 'old', 'feature', 'failed'),
        r('u2', 'a', 2, 'old', 'feature'),
        r('u3', 'a', 3, 'x', 'feature'),
        r('u3', 'b', 3, 'x', 'feature', 'failed'),
        r('u4', 'a', 4, 'x', 'feature', 'failed'),
        r('u4', 'b', 4, 'x', 'feature'),
        r('u5', 'a', 5, 'y', 'main'),
        r('u6', 'a', 6, 'z', 'feature', 'failed'),
        { ...r('u7', 'a', 7, 'z', 'feature'), ignoredForDetection: true },
        r('u8', 'a', 8, 'now', 'feature'),
      ];
      for (const [i, u] of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7', 'u8'].entries()) {
        const mine = results.filter((x) => x.uploadId === u);
        await store.tests.commitTestUpload({ upload: anUpload(u, i), results: mine, testCases: [], events: [], keepResultsSince: at(-100) });
      }
      const read = async (ids: string[], since: number, commitSha: string, flakyCommits = 1, until = 100) =>
        (await store.tests.detectionResults(REPO, ids, at(since), { targetBranches: ['main'], commitSha, flakyCommits, until: at(until) })).map((x) => `${x.uploadId}:${x.testCaseId}`);
      // Flaky commits: a on 'old' (last at 2) and 'x' (at 4), b on 'x'; 'z' only failed where it counts
      // (its pass is ignored); 'y' is on main; the upload's commit is read whole.
      expect(await read(['a'], 0, 'now')).toEqual(['u3:a', 'u4:a', 'u5:a', 'u8:a']);
      expect(await read(['a'], 0, 'z', 2)).toEqual(['u1:a', 'u2:a', 'u3:a', 'u4:a', 'u5:a', 'u6:a', 'u7:a']);
      expect(await read(['a', 'b'], 0, 'none')).toEqual(['u3:a', 'u3:b', 'u4:a', 'u4:b', 'u5:a']);
      // Only events at or before `until`, of results since `since`.
      expect(await read(['a'], 0, 'none', 1, 3)).toEqual(['u1:a', 'u2:a', 'u5:a']);
      expect(await read(['a'], 2, 'none', 2)).toEqual(['u3:a', 'u4:a', 'u5:a']);
      expect(await read([], 0, 'now')).toEqual([]);
    });

    it('test cases to watch: not healthy, quarantined, or failed recently', async () => {
      const flaky = aTestCase(REPO, { status: 'flaky', quarantinedAt: null });
      const always = aTestCase(REPO, { status: 'healthy', quarantinedAt: at(1) });
      const failedLately = aTestCase(REPO, { status: 'healthy', quarantinedAt: null, lastFailedAt: at(10) });
      const failedLongAgo = aTestCase(REPO, { status: 'healthy', quarantinedAt: null, lastFailedAt: at(1) });
      const neverFailed = aTestCase(REPO, { status: 'healthy', quarantinedAt: null });
      await store.tests.writeTestCases([flaky, always, failedLately, failedLongAgo, neverFailed], []);
      const ids = (await store.tests.testCasesToWatch(REPO, at(5))).map((t) => t.testCaseId).sort();
      expect(ids).toEqual([flaky, always, failedLately].map((t) => t.testCaseId).sort());
      expect((await store.tests.getTestCases(REPO, [neverFailed.testCaseId, 'missing'])).map((t) => t.testCaseId)).toEqual([neverFailed.testCaseId]);
      expect(await store.tests.existingTestCaseIds(REPO, ['missing', neverFailed.testCaseId])).toEqual([neverFailed.testCaseId]);
      expect(await store.tests.existingTestCaseIds('github.com/acme/other', [neverFailed.testCaseId])).toEqual([]);
    });

    it('keeps a test case history in order', async () => {
      const events: TestCaseEvent[] = [
        { kind: 'quarantine_setting', repoKey: REPO, testCaseId: 't', at: at(1), from: 'auto', to: 'always', by: 'ci', reason: 'noisy' },
        { kind: 'quarantine', repoKey: REPO, testCaseId: 't', at: at(1), quarantined: true },
      ];
      await store.tests.writeTestCases([], events.slice(0, 1));
      await store.tests.writeTestCases([], events.slice(1));
      expect(await store.tests.testCaseEvents(REPO, 't')).toEqual(events);
    });

    it('keeps settings per repository', async () => {
      expect(await store.tests.getFlakySettings(REPO)).toBeNull();
      const settings = { ...DEFAULT_FLAKY_SETTINGS, brokenRuns: 3, targetBranches: ['trunk'] };
      await store.tests.putFlakySettings(REPO, settings);
      expect(await store.tests.getFlakySettings(REPO)).toEqual(settings);
      expect(await store.tests.getFlakySettings('github.com/acme/other')).toBeNull();
    });

    it('counts flaky, broken and quarantined tests per repository', async () => {
      await store.tests.writeTestCases(
        [
          aTestCase(REPO, { status: 'flaky', quarantinedAt: at(1) }),
          aTestCase(REPO, { status: 'flaky', quarantinedAt: null }),
          aTestCase(REPO, { status: 'broken', quarantinedAt: null }),
          aTestCase(REPO, { status: 'healthy', quarantinedAt: at(2) }),
          aTestCase('github.com/acme/other', { status: 'healthy', quarantinedAt: null }),
          aTestCase('github.com/acme-labs/tools', { status: 'flaky', quarantinedAt: null }),
          aTestCase('github.com/acm/x', { status: 'flaky', quarantinedAt: null }),
        ],
        [],
      );
      expect(await store.tests.testCaseCounts(['github.com/acme', 'github.com/nobody'])).toEqual([
        { repoKey: 'github.com/acme/other', flaky: 0, broken: 0, quarantined: 0 },
        { repoKey: REPO, flaky: 2, broken: 1, quarantined: 2 },
      ]);
    });
  });

  describe('test cases', () => {
    const repo = 'github.com/acme/widgets';

    it('stores a test case and replaces it on upsert', async () => {
      const tc = aTestCase(repo, { status: 'healthy', quarantinedAt: null });
      await store.tests.upsertTestCase(tc);
      expect(await store.tests.getTestCase(repo, tc.testCaseId)).toEqual(tc);
      const flaky = { ...tc, status: 'flaky' as const, quarantinedAt: at(3), codeowners: ['@acme/core'] };
      await store.tests.upsertTestCase(flaky);
      expect(await store.tests.getTestCase(repo, tc.testCaseId)).toEqual(flaky);
      expect(await store.tests.getTestCase('github.com/acme/other', tc.testCaseId)).toBeNull();
    });

    it('lists quarantined tests, most recently quarantined first, ties by test case id, with the total', async () => {
      const a = aTestCase(repo, { testCaseId: 'a', quarantinedAt: at(5) });
      const b = aTestCase(repo, { testCaseId: 'b', quarantinedAt: at(9) });
      const c = aTestCase(repo, { testCaseId: 'c', quarantinedAt: at(5) });
      const d = aTestCase(repo, { testCaseId: 'd', quarantinedAt: at(1) });
      const healthy = aTestCase(repo, { testCaseId: 'e', status: 'healthy', quarantinedAt: null });
      const elsewhere = aTestCase('github.com/acme/other', { testCaseId: 'f', quarantinedAt: at(20) });
      for (const tc of [d, healthy, c, elsewhere, a, b]) await store.tests.upsertTestCase(tc);

      expect(await store.tests.listQuarantinedTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [b, a, c, d], total: 4 });
      expect(await store.tests.listQuarantinedTests(repo, { offset: 1, limit: 2 })).toEqual({ rows: [a, c], total: 4 });
      expect(await store.tests.listQuarantinedTests(repo, { offset: 4, limit: 2 })).toEqual({ rows: [], total: 4 });
      expect(await store.tests.listQuarantinedTests('github.com/none/none', { offset: 0, limit: 5 })).toEqual({
        rows: [],
        total: 0,
      });
    });

    it('lists flaky, broken and quarantined tests, most recent status change first, with the total', async () => {
      const flaky = aTestCase(repo, { testCaseId: 'a', status: 'flaky', quarantinedAt: null, statusLastUpdatedAt: at(5) });
      const broken = aTestCase(repo, { testCaseId: 'b', status: 'broken', quarantinedAt: at(2), statusLastUpdatedAt: at(9) });
      const pinned = aTestCase(repo, { testCaseId: 'c', status: 'healthy', quarantinedAt: at(3), statusLastUpdatedAt: at(1) });
      const healthy = aTestCase(repo, { testCaseId: 'd', status: 'healthy', quarantinedAt: null, statusLastUpdatedAt: at(20) });
      const elsewhere = aTestCase('github.com/acme/other', { testCaseId: 'e', status: 'flaky', statusLastUpdatedAt: at(30) });
      for (const tc of [healthy, pinned, elsewhere, flaky, broken]) await store.tests.upsertTestCase(tc);

      expect(await store.tests.listFlakyTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [broken, flaky, pinned], total: 3 });
      expect(await store.tests.listFlakyTests(repo, { offset: 1, limit: 1 })).toEqual({ rows: [flaky], total: 3 });
      expect(await store.tests.listFlakyTests('github.com/none/none', { offset: 0, limit: 5 })).toEqual({ rows: [], total: 0 });
    });

    it('drops a test from the list when it leaves quarantine', async () => {
      const tc = aTestCase(repo, { quarantinedAt: at(1) });
      await store.tests.upsertTestCase(tc);
      await store.tests.upsertTestCase({ ...tc, quarantinedAt: null, status: 'healthy' });
      expect(await store.tests.listQuarantinedTests(repo, { offset: 0, limit: 10 })).toEqual({ rows: [], total: 0 });
    });
  });
}

import { randomUUID } from 'node:crypto';
import { DEFAULT_FLAKY_SETTINGS, MAX_NAMED_FAILURES, type FlakySettings, type TestCaseEvent, type TestIdentity, type TestResult, type UploadAnswer } from '../domain/flaky.js';
import type { Org } from '../domain/org.js';
import type { FailedTest } from '../domain/run.js';
import type { QuarantineSetting, TestCase } from '../domain/quarantine.js';
import { repoKey, type RepoRef } from '../domain/repo.js';
import type { Clock } from '../domain/clock.js';
import { applyVerdict } from '../flaky/apply-verdict.js';
import { noCodeOwners, type CodeOwnersSource } from '../domain/codeowners-source.js';
import { evaluate, statusOf } from '../flaky/detection-rules.js';
import { withUploaded } from '../flaky/results-by-case.js';
import type { UploadedTestCase } from '../flaky/group-attempts.js';
import { isInfrastructureFailure } from '../flaky/infrastructure-protection.js';
import { testCaseId } from '../flaky/test-case-id.js';
import type { TestCaseStore } from '../store/store.js';
import { ServiceError } from './errors.js';
import { KeyedLock } from '../queue-docs/keyed-lock.js';
import { assertOwnsRepo } from './tenancy.js';
import { readUploadedJunit } from './junit-upload-reader.js';
import { loopPacer, turnLoop } from './loop-pacer.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** flaky-tests.md: results are kept 30 days. */
export const RESULT_RETENTION_DAYS = 30;
const RECENT_RESULTS_SHOWN = 50;
/** Test cases read from the store at once (their ids, or their whole history when their status changes). */
const READ_BATCH = 500;

export interface UploadInput {
  repo: RepoRef;
  commitSha: string;
  branch?: string | null;
  prNumber?: number | null;
  jobName?: string | null;
  variant?: string | null;
  uploadId?: string | null;
  /** The JUnit XML documents of one job. */
  junitXml: string[];
  /** The checkout directory on the runner: absolute `file` paths below it are made relative to it. */
  pathRoot?: string | null;
}

export interface TestCaseRef {
  repo: RepoRef;
  testCaseId: string;
}

/** Told the failed tests of every new upload, as known after it (the queue links them to its runs). */
export type TestResultsListener = (repo: RepoRef, commitSha: string, failedTests: FailedTest[]) => Promise<unknown>;

export interface FlakyTestServiceDeps {
  store: { tests: TestCaseStore };
  clock: Clock;
  codeOwners?: CodeOwnersSource;
  onTestResults?: TestResultsListener;
}

/** The flaky-test operations: ingestion, detection, quarantine control and the CI's quarantine list. */
export class FlakyTestService {
  private readonly store: FlakyTestServiceDeps['store'];
  private readonly clock: Clock;
  private readonly codeOwners: CodeOwnersSource;
  private readonly onTestResults: TestResultsListener | null;
  /** Uploads of one repository are evaluated one after another in this process. */
  private readonly lock = new KeyedLock();

  constructor(deps: FlakyTestServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.codeOwners = deps.codeOwners ?? noCodeOwners;
    this.onTestResults = deps.onTestResults ?? null;
  }

  async upload(org: Org, input: UploadInput): Promise<UploadAnswer> {
    assertOwnsRepo(org, input.repo);
    const key = repoKey(input.repo);
    const uploadId = input.uploadId ?? randomUUID();
    let failedTests: FailedTest[] | null = null;
    const answer = await this.lock.run(key, async () => {
      const earlier = await this.store.tests.getTestUpload(key, uploadId);
      if (earlier) return earlier.answer;

      const { cases, truncatedNames } = await readUploadedJunit(input.junitXml, input.variant ?? null, input.pathRoot ?? null);
      const ingested = await this.ingest(key, input, uploadId, cases, truncatedNames);
      failedTests = ingested?.failedTests ?? null;
      // Another process may have stored the same uploadId meanwhile: its answer is the answer.
      return ingested?.answer ?? (await this.store.tests.getTestUpload(key, uploadId))!.answer;
    });
    // The queue must not fail an upload: it learns what it can and decides without results otherwise.
    if (failedTests && this.onTestResults) await this.onTestResults(input.repo, input.commitSha, failedTests).catch(() => undefined);
    return answer;
  }

  private async ingest(
    key: string,
    input: UploadInput,
    uploadId: string,
    cases: UploadedTestCase[],
    truncatedNames: number,
  ): Promise<{ answer: UploadAnswer; failedTests: FailedTest[] } | null> {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const pace = loopPacer();
    const settings = await this.settingsOf(key);
    const failed = cases.filter((c) => c.outcome === 'failed').length;
    const skipped = cases.filter((c) => c.outcome === 'skipped').length;
    const ignoredForDetection = isInfrastructureFailure(cases.length, failed);
    const branch = input.branch ?? null;

    const uploaded: { id: string; c: UploadedTestCase }[] = [];
    for (const c of cases) {
      uploaded.push({ id: testCaseId(key, c), c });
      await pace();
    }
    const results = new Map<string, TestResult>(
      uploaded.map(({ id, c }) => [
        id,
        {
          repoKey: key,
          testCaseId: id,
          uploadId,
          commitSha: input.commitSha,
          branch,
          outcome: c.outcome,
          failedAttempts: c.failedAttempts,
          passedAttempts: c.passedAttempts,
          at: nowIso,
          ignoredForDetection,
        },
      ]),
    );

    // Only the documents that may change are read: tests that failed now, and those to watch (not
    // healthy, quarantined, or failed within the window). Of the others, only whether they exist.
    const windowStart = new Date(now.getTime() - settings.flakyWindowDays * DAY_MS).toISOString();
    const existing = new Set(await inBatches(uploaded.map((u) => u.id), (batch) => this.store.tests.existingTestCaseIds(key, batch)));
    const watched = await this.store.tests.testCasesToWatch(key, windowStart);
    const current = new Map<string, TestCase>(watched.map((tc) => [tc.testCaseId, tc]));
    const failedNow = uploaded.filter(({ id, c }) => c.failedAttempts > 0 && existing.has(id) && !current.has(id)).map((u) => u.id);
    for (const tc of await inBatches(failedNow, (batch) => this.store.tests.getTestCases(key, batch))) current.set(tc.testCaseId, tc);
    // flaky-tests.md: a run never forgives its own new failure. Only a quarantine that came before
    // this upload's results forgives; what this upload teaches counts for the next runs.
    const quarantinedBefore = new Set([...current.values()].filter((tc) => tc.quarantinedAt !== null).map((tc) => tc.testCaseId));
    const dirty = new Set<string>();
    for (const { id, c } of uploaded) {
      let tc = current.get(id);
      if (!existing.has(id)) {
        tc = newTestCase(key, id, c, nowIso);
        dirty.add(id);
      }
      if (tc && c.failedAttempts > 0 && !ignoredForDetection) {
        tc = { ...tc, lastFailedAt: nowIso };
        dirty.add(id);
      }
      if (tc) current.set(id, tc);
      await pace();
    }

    const events: TestCaseEvent[] = [];
    const newlyFlaky: string[] = [];
    if (!ignoredForDetection) {
      // Tests that can change status: those that failed now or lately, and those not healthy or
      // quarantined — time alone can heal those.
      const toEvaluate = [...current.values()].filter((tc) => tc.status !== 'healthy' || tc.quarantinedAt !== null || (tc.lastFailedAt != null && tc.lastFailedAt >= windowStart));
      const since = new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY_MS).toISOString();
      // Only what the status depends on (isDetectionEvidence: target branch, this commit, the latest
      // flaky commits): the same status as the whole history, at a cost that does not grow with it.
      // This upload's results are all on its commit, read whole, so a failure now finds the passes before it.
      const ids = toEvaluate.map((tc) => tc.testCaseId);
      const scope = { targetBranches: settings.targetBranches, commitSha: input.commitSha, flakyCommits: Math.max(1, settings.flakyMinEvents), until: nowIso };
      const history = withUploaded(await inBatches(ids, (batch) => this.store.tests.detectionResults(key, batch, since, scope)), results, ids);
      const changing: TestCase[] = [];
      for (const tc of toEvaluate) {
        const seen = statusOf(history.get(tc.testCaseId) ?? [], settings, now);
        if (applyVerdict(tc, { status: { to: seen, evidence: { commits: [], uploads: [] } } }, settings.autoQuarantine, nowIso).changed) changing.push(tc);
        await pace();
      }
      // A change is rare: its evidence comes from the whole history, as the rules define it.
      for (let at = 0; at < changing.length; at += READ_BATCH) {
        const batch = changing.slice(at, at + READ_BATCH);
        const batchIds = batch.map((tc) => tc.testCaseId);
        const whole = withUploaded(await this.store.tests.testResults(key, batchIds, since), results, batchIds);
        for (const tc of batch) {
          const verdict = evaluate(whole.get(tc.testCaseId) ?? [], settings, now);
          const change = applyVerdict(tc, { status: { to: verdict.status, evidence: verdict.evidence } }, settings.autoQuarantine, nowIso);
          await pace();
          // The same change, but for results stamped later than now (a clock set back): then none.
          if (!change.changed) continue;
          if (verdict.status === 'flaky' && tc.status !== 'flaky') newlyFlaky.push(tc.testCaseId);
          current.set(tc.testCaseId, await this.withOwners(input.repo, tc, change.testCase));
          events.push(...change.events);
          dirty.add(tc.testCaseId);
        }
      }
    }

    const failedCases = uploaded.filter(({ c }) => c.outcome === 'failed');
    const forgiven = failedCases.filter(({ id }) => quarantinedBefore.has(id));
    const named = (id: string, t: { name: string; classname: string | null; file: string | null }) => ({ test_case_id: id, name: t.name, classname: t.classname, file: t.file });
    const answer: UploadAnswer = {
      uploadId,
      commitSha: input.commitSha,
      tests: cases.length,
      failed,
      skipped,
      quarantinedFailures: forgiven.length,
      newlyFlaky,
      ignoredForDetection,
      quarantinedFailedTests: forgiven.map(({ id, c }) => named(id, c)),
      failedTests: failedCases.slice(0, MAX_NAMED_FAILURES).map(({ id, c }) => named(id, c)),
      newlyFlakyTests: newlyFlaky.map((id) => named(id, current.get(id)!)),
      newlyQuarantinedFailures: failedCases.filter(({ id }) => !quarantinedBefore.has(id) && (current.get(id)?.quarantinedAt ?? null) !== null).length,
      truncatedNames,
      ...(cases.length === 0 ? { note: 'the upload holds no testcase: nothing to learn from it' } : {}),
    };
    const committed = await this.store.tests.commitTestUpload({
      upload: {
        repoKey: key,
        uploadId,
        commitSha: input.commitSha,
        branch,
        prNumber: input.prNumber ?? null,
        jobName: input.jobName ?? null,
        variant: input.variant ?? null,
        at: nowIso,
        answer,
      },
      results: [...results.values()],
      testCases: [...dirty].map((id) => current.get(id)!),
      events,
      keepResultsSince: new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY_MS).toISOString(),
    });
    if (!committed) return null;
    // A broken runner's upload says nothing about single tests: the queue decides as without results.
    const failedTests = ignoredForDetection
      ? []
      : failedCases.map(({ id, c }) => ({
          testCaseId: id,
          name: c.name,
          knownFlaky: current.get(id)?.status === 'flaky',
          quarantined: (current.get(id)?.quarantinedAt ?? null) !== null,
        }));
    return { answer, failedTests };
  }

  async getSettings(org: Org, repo: RepoRef): Promise<FlakySettings & { repo: RepoRef }> {
    assertOwnsRepo(org, repo);
    return { repo, ...(await this.settingsOf(repoKey(repo))) };
  }

  /**
   * Omitted fields stay unchanged. A change of autoQuarantine applies at once to the tests it
   * concerns; statuses are re-evaluated with the new rules at the repository's next upload.
   */
  async updateSettings(org: Org, repo: RepoRef, changes: Partial<FlakySettings>): Promise<FlakySettings & { repo: RepoRef }> {
    assertOwnsRepo(org, repo);
    const key = repoKey(repo);
    return this.lock.run(key, async () => {
      const before = await this.settingsOf(key);
      const next = { ...before, ...definedOnly(changes) };
      await this.store.tests.putFlakySettings(key, next);
      if (next.autoQuarantine !== before.autoQuarantine) {
        const now = this.clock.now().toISOString();
        const changed = [];
        for (const tc of await this.store.tests.testCasesToWatch(key, now)) {
          const change = applyVerdict(tc, {}, next.autoQuarantine, now);
          if (change.changed) changed.push({ testCase: await this.withOwners(repo, tc, change.testCase), events: change.events });
        }
        await this.store.tests.writeTestCases(changed.map((c) => c.testCase), changed.flatMap((c) => c.events));
      }
      return { repo, ...next };
    });
  }

  async setQuarantineSetting(org: Org, by: string, ref: TestCaseRef, setting: QuarantineSetting, reason: string | null) {
    assertOwnsRepo(org, ref.repo);
    const key = repoKey(ref.repo);
    return this.lock.run(key, async () => {
      const tc = await this.store.tests.getTestCase(key, ref.testCaseId);
      if (!tc) throw testCaseNotFound(ref.testCaseId);
      const settings = await this.settingsOf(key);
      const change = applyVerdict(tc, { setting: { to: setting, by, reason } }, settings.autoQuarantine, this.clock.now().toISOString());
      const updated = await this.withOwners(ref.repo, tc, change.testCase);
      if (change.changed) await this.store.tests.writeTestCases([updated], change.events);
      return this.describe(key, updated);
    });
  }

  async getTestCase(org: Org, ref: TestCaseRef) {
    assertOwnsRepo(org, ref.repo);
    const key = repoKey(ref.repo);
    const tc = await this.store.tests.getTestCase(key, ref.testCaseId);
    if (!tc) throw testCaseNotFound(ref.testCaseId);
    return this.describe(key, tc);
  }

  /** The ids, among those named, of the tests quarantined now. */
  async getQuarantineConfig(org: Org, repo: RepoRef, tests: { testCaseIds?: string[]; tests?: Partial<TestIdentity>[] }): Promise<{ quarantined: string[] }> {
    assertOwnsRepo(org, repo);
    const key = repoKey(repo);
    const ids = [
      ...(tests.testCaseIds ?? []),
      ...(tests.tests ?? []).map((t) =>
        testCaseId(key, { file: t.file ?? null, classname: t.classname ?? null, parent: t.parent ?? null, name: t.name ?? '', variant: t.variant ?? null }),
      ),
    ];
    const cases = await this.store.tests.getTestCases(key, [...new Set(ids)]);
    return { quarantined: cases.filter((tc) => tc.quarantinedAt !== null).map((tc) => tc.testCaseId).sort() };
  }

  private async describe(key: string, tc: TestCase) {
    const since = new Date(this.clock.now().getTime() - RESULT_RETENTION_DAYS * DAY_MS).toISOString();
    const [history, results] = await Promise.all([this.store.tests.testCaseEvents(key, tc.testCaseId), this.store.tests.testResults(key, [tc.testCaseId], since)]);
    return {
      test_case_id: tc.testCaseId,
      name: tc.name,
      parent: tc.parent,
      file: tc.file,
      classname: tc.classname,
      variant: tc.variant,
      codeowners: tc.codeowners,
      status: tc.status,
      status_last_updated_at: tc.statusLastUpdatedAt,
      quarantine_setting: tc.quarantineSetting,
      quarantined: tc.quarantinedAt !== null,
      quarantined_at: tc.quarantinedAt,
      history: history.map(({ repoKey: _r, testCaseId: _t, ...event }) => event),
      recentResults: results
        .slice(-RECENT_RESULTS_SHOWN)
        .reverse()
        .map(({ repoKey: _r, testCaseId: _t, ...result }) => result),
    };
  }

  /** Owners are looked up when a test enters quarantine, where the listing shows them. */
  private async withOwners(repo: RepoRef, before: TestCase, after: TestCase): Promise<TestCase> {
    if (after.quarantinedAt === null || before.quarantinedAt !== null) return after;
    return { ...after, codeowners: await this.codeOwners.ownersOf(repo, after.file).catch(() => after.codeowners) };
  }

  private async settingsOf(key: string): Promise<FlakySettings> {
    return { ...DEFAULT_FLAKY_SETTINGS, ...(await this.store.tests.getFlakySettings(key)) };
  }
}

function newTestCase(key: string, id: string, c: UploadedTestCase, now: string): TestCase {
  return {
    testCaseId: id,
    repoKey: key,
    name: c.name,
    parent: c.parent,
    file: c.file,
    classname: c.classname,
    variant: c.variant,
    codeowners: [],
    status: 'healthy',
    statusLastUpdatedAt: now,
    quarantineSetting: 'auto',
    quarantinedAt: null,
    lastFailedAt: null,
    firstSeenAt: now,
  };
}

function testCaseNotFound(id: string): ServiceError {
  return new ServiceError(404, 'test_case_not_found', 'Test case not found', `no test case ${id} in this repository`);
}

/** What `read` answers for all the ids, asked READ_BATCH at a time, letting the event loop turn between. */
async function inBatches<T>(ids: string[], read: (batch: string[]) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let at = 0; at < ids.length; at += READ_BATCH) {
    if (at > 0) await turnLoop();
    all.push(...(await read(ids.slice(at, at + READ_BATCH))));
  }
  return all;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

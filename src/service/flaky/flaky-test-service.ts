import { randomUUID } from 'node:crypto';
import { type FlakySettings, type TestCaseEvent, type TestIdentity, type TestResult, type UploadAnswer } from '../../domain/flaky.js';
import type { Org } from '../../domain/org.js';
import type { FailedTest } from '../../domain/run.js';
import type { QuarantineSetting, TestCase } from '../../domain/quarantine.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import type { Clock } from '../../domain/clock.js';
import { applyVerdict } from '../../flaky/apply-verdict.js';
import { noCodeOwners, type CodeOwnersSource } from '../../domain/codeowners-source.js';
import { withUploaded } from '../../flaky/results-by-case.js';
import type { UploadedTestCase } from '../../flaky/group-attempts.js';
import { testCaseId } from '../../flaky/test-case-id.js';
import {
  changesOnEvidence,
  failedTestsForQueue,
  isIgnoredForDetection,
  learnedCase,
  mayChangeStatus,
  statusChange,
  uploadAnswer,
  uploadResult,
  windowStart,
  type IdentifiedCase,
  type StatusChange,
  type UploadMeta,
} from '../../flaky/upload-decision.js';
import { LOST, retryOnConflict, type TestCaseStore } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import { orBusy } from '../busy.js';
import { KeyedLock } from '../../queue-docs/keyed-lock.js';
import { assertOwnsRepo } from '../access/tenancy.js';
import { toTestCaseRecord } from './test-case-record.js';
import { readUploadedJunit } from './junit-upload-reader.js';
import { changeFlakySettings, flakySettingsOf } from './flaky-settings.js';
import { changeTestCase, type TestCaseDecision } from './test-case-change.js';
import { inBatches, loopPacer } from './loop-pacer.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** flaky-tests.md: results are kept 30 days. */
export const RESULT_RETENTION_DAYS = 30;
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
    const answer = await orBusy(this.lock.run(key, async () => {
      const earlier = await this.store.tests.getTestUpload(key, uploadId);
      if (earlier) return earlier.answer;

      const { cases, truncatedNames } = await readUploadedJunit(input.junitXml, input.variant ?? null, input.pathRoot ?? null);
      // Decided again on what is stored when another replica changed a test case it decided on meanwhile.
      const ingested = await retryOnConflict(`upload ${uploadId}`, () => this.ingest(org.id, key, input, uploadId, cases, truncatedNames));
      failedTests = ingested?.failedTests ?? null;
      // Another process may have stored the same uploadId meanwhile: its answer is the answer.
      return ingested?.answer ?? (await this.store.tests.getTestUpload(key, uploadId))!.answer;
    }));
    // The queue must not fail an upload: it learns what it can and decides without results otherwise.
    if (failedTests && this.onTestResults) await this.onTestResults(input.repo, input.commitSha, failedTests).catch(() => undefined);
    return answer;
  }

  /** Reads what upload-decision.ts needs to decide, letting the event loop turn, and commits what it decides. */
  private async ingest(
    orgId: string,
    key: string,
    input: UploadInput,
    uploadId: string,
    uploadedCases: UploadedTestCase[],
    truncatedNames: number,
  ): Promise<{ answer: UploadAnswer; failedTests: FailedTest[] } | null | typeof LOST> {
    const now = this.clock.now();
    const meta: UploadMeta = { repoKey: key, uploadId, commitSha: input.commitSha, branch: input.branch ?? null, at: now.toISOString() };
    const pace = loopPacer();
    const settings = await this.settingsOf(key);
    const ignoredForDetection = isIgnoredForDetection(uploadedCases);
    const cases: IdentifiedCase[] = [];
    const results = new Map<string, TestResult>();
    for (const c of uploadedCases) {
      const uploaded = { id: testCaseId(key, c), c };
      cases.push(uploaded);
      results.set(uploaded.id, uploadResult(meta, uploaded, ignoredForDetection));
      await pace();
    }

    // Only the documents that may change are read: tests that failed now, and those to watch (not
    // healthy, quarantined, or failed within the window). Of the others, only whether they exist.
    const since = windowStart(settings, now);
    const existing = new Set(await inBatches(READ_BATCH, cases.map((u) => u.id), (batch) => this.store.tests.existingTestCaseIds(key, batch)));
    const current = new Map<string, TestCase>((await this.store.tests.testCasesToWatch(key, since)).map((tc) => [tc.testCaseId, tc]));
    const failedNow = cases.filter(({ id, c }) => c.failedAttempts > 0 && existing.has(id) && !current.has(id)).map((u) => u.id);
    for (const tc of await inBatches(READ_BATCH, failedNow, (batch) => this.store.tests.getTestCases(key, batch))) current.set(tc.testCaseId, tc);
    const asRead = new Map(current);
    // flaky-tests.md: a run never forgives its own new failure. Only a quarantine that came before
    // this upload's results forgives; what this upload teaches counts for the next runs.
    const quarantinedBefore = new Set([...current.values()].filter((tc) => tc.quarantinedAt !== null).map((tc) => tc.testCaseId));
    const dirty = new Set<string>();
    for (const uploaded of cases) {
      const learned = learnedCase(current.get(uploaded.id), existing.has(uploaded.id), uploaded, meta, ignoredForDetection);
      if (learned) current.set(uploaded.id, learned.testCase);
      if (learned?.dirty) dirty.add(uploaded.id);
      await pace();
    }

    const events: TestCaseEvent[] = [];
    const newlyFlaky: string[] = [];
    if (!ignoredForDetection) {
      for (const change of await this.statusChanges(key, input, settings, now, [...current.values()].filter((tc) => mayChangeStatus(tc, since)), results)) {
        if (change.newlyFlaky) newlyFlaky.push(change.before.testCaseId);
        current.set(change.before.testCaseId, await this.withOwners(input.repo, change.before, change.testCase));
        events.push(...change.events);
        dirty.add(change.before.testCaseId);
        await pace();
      }
    }

    const outcome = { uploadId, commitSha: input.commitSha, cases, truncatedNames, ignoredForDetection, quarantinedBefore, after: current, newlyFlaky };
    const answer = uploadAnswer(outcome);
    const upload = { ...meta, prNumber: input.prNumber ?? null, jobName: input.jobName ?? null, variant: input.variant ?? null, answer };
    const committed = await this.store.tests.commitTestUpload({
      upload,
      results: [...results.values()],
      testCases: [...dirty].map((id) => current.get(id)!),
      events,
      keepResultsSince: new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY_MS).toISOString(),
      orgId,
      asRead: [...dirty].flatMap((id) => asRead.get(id) ?? []),
    });
    if (committed === LOST) return LOST;
    return committed ? { answer, failedTests: failedTestsForQueue(outcome) } : null;
  }

  /**
   * The status changes of the test cases that may change. Their detection evidence is read for all
   * (what the status depends on, at a cost that does not grow with the history; this upload's
   * results are all on its commit, so a failure now finds the passes before it); the whole history
   * only for the few whose status changes, for the evidence the rules define.
   */
  private async statusChanges(
    key: string,
    input: UploadInput,
    settings: FlakySettings,
    now: Date,
    candidates: TestCase[],
    results: ReadonlyMap<string, TestResult>,
  ): Promise<(StatusChange & { before: TestCase })[]> {
    const pace = loopPacer();
    const since = new Date(now.getTime() - RESULT_RETENTION_DAYS * DAY_MS).toISOString();
    const ids = candidates.map((tc) => tc.testCaseId);
    const scope = { targetBranches: settings.targetBranches, commitSha: input.commitSha, flakyCommits: Math.max(1, settings.flakyMinEvents), until: now.toISOString() };
    const evidence = withUploaded(await inBatches(READ_BATCH, ids, (batch) => this.store.tests.detectionResults(key, batch, since, scope)), results, ids);
    const changing: TestCase[] = [];
    for (const tc of candidates) {
      if (changesOnEvidence(tc, evidence.get(tc.testCaseId) ?? [], settings, now)) changing.push(tc);
      await pace();
    }
    const changes: (StatusChange & { before: TestCase })[] = [];
    for (let at = 0; at < changing.length; at += READ_BATCH) {
      const batch = changing.slice(at, at + READ_BATCH);
      const batchIds = batch.map((tc) => tc.testCaseId);
      const whole = withUploaded(await this.store.tests.testResults(key, batchIds, since), results, batchIds);
      for (const tc of batch) {
        const change = statusChange(tc, whole.get(tc.testCaseId) ?? [], settings, now);
        if (change) changes.push({ ...change, before: tc });
        await pace();
      }
    }
    return changes;
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
    return orBusy(this.lock.run(key, async () => {
      const { before, next } = await changeFlakySettings(this.store.tests, key, changes);
      if (next.autoQuarantine !== before.autoQuarantine) {
        const now = this.clock.now().toISOString();
        for (const tc of await this.store.tests.testCasesToWatch(key, now)) {
          await changeTestCase(this.store.tests, { ...tc, orgId: org.id }, (current) => this.decide(repo, current, applyVerdict(current, {}, next.autoQuarantine, now)), tc);
        }
      }
      return { repo, ...next };
    }));
  }

  async setQuarantineSetting(org: Org, by: string, ref: TestCaseRef, setting: QuarantineSetting, reason: string | null) {
    assertOwnsRepo(org, ref.repo);
    const key = repoKey(ref.repo);
    return orBusy(this.lock.run(key, async () => {
      const updated = await changeTestCase(this.store.tests, { repoKey: key, testCaseId: ref.testCaseId, orgId: org.id }, async (tc) => {
        const { autoQuarantine } = await this.settingsOf(key);
        return this.decide(ref.repo, tc, applyVerdict(tc, { setting: { to: setting, by, reason } }, autoQuarantine, this.clock.now().toISOString()));
      });
      if (!updated) throw testCaseNotFound(ref.testCaseId);
      return this.describe(key, updated);
    }));
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
    return toTestCaseRecord(tc, history, results);
  }

  private async decide(repo: RepoRef, before: TestCase, change: { testCase: TestCase; events: TestCaseEvent[]; changed: boolean }): Promise<TestCaseDecision> {
    return { ...change, testCase: await this.withOwners(repo, before, change.testCase) };
  }

  /** Owners are looked up when a test enters quarantine, where the listing shows them. */
  private async withOwners(repo: RepoRef, before: TestCase, after: TestCase): Promise<TestCase> {
    if (after.quarantinedAt === null || before.quarantinedAt !== null) return after;
    return { ...after, codeowners: await this.codeOwners.ownersOf(repo, after.file).catch(() => after.codeowners) };
  }

  private settingsOf(key: string): Promise<FlakySettings> {
    return flakySettingsOf(this.store.tests, key);
  }
}

function testCaseNotFound(id: string): ServiceError {
  return new ServiceError(404, 'test_case_not_found', 'Test case not found', `no test case ${id} in this repository`);
}

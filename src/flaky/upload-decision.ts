import { MAX_NAMED_FAILURES, type FlakySettings, type NamedTest, type TestCaseEvent, type TestResult, type UploadAnswer } from '../domain/flaky.js';
import type { FailedTest } from '../domain/run.js';
import type { TestCase } from '../domain/quarantine.js';
import { applyVerdict } from './apply-verdict.js';
import { evaluate, statusOf } from './detection-rules.js';
import type { UploadedTestCase } from './group-attempts.js';
import { isInfrastructureFailure } from './infrastructure-protection.js';

/**
 * What one upload decides, without reading or writing anything (as the planner is to the engine):
 * the flaky-test service reads what these functions name, hands it to them, and commits what they
 * return. Each function is cheap per test case, so the service can let the event loop turn between.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/** One test case of the upload with its id. */
export interface IdentifiedCase {
  id: string;
  c: UploadedTestCase;
}

export interface UploadMeta {
  repoKey: string;
  uploadId: string;
  commitSha: string;
  branch: string | null;
  /** The upload's time, ISO. */
  at: string;
}

/** Infrastructure protection: an upload where most tests failed is kept, but drives no detection. */
export function isIgnoredForDetection(cases: readonly UploadedTestCase[]): boolean {
  return isInfrastructureFailure(cases.length, cases.filter((c) => c.outcome === 'failed').length);
}

/** The result the upload stores for one test case. */
export function uploadResult(meta: UploadMeta, { id, c }: IdentifiedCase, ignoredForDetection: boolean): TestResult {
  return {
    repoKey: meta.repoKey,
    testCaseId: id,
    uploadId: meta.uploadId,
    commitSha: meta.commitSha,
    branch: meta.branch,
    outcome: c.outcome,
    failedAttempts: c.failedAttempts,
    passedAttempts: c.passedAttempts,
    at: meta.at,
    ignoredForDetection,
  };
}

/** The start of the flaky window at `now`: tests that failed since may change status. */
export function windowStart(settings: FlakySettings, now: Date): string {
  return new Date(now.getTime() - settings.flakyWindowDays * DAY_MS).toISOString();
}

/**
 * A test case as the upload leaves it before detection: a new one for a test never seen, the time
 * of its last failure when it failed now (unless the upload is ignored for detection). `dirty` when
 * it must be written; null when the test case exists but was not read (it cannot change).
 */
export function learnedCase(
  stored: TestCase | undefined,
  exists: boolean,
  { id, c }: IdentifiedCase,
  meta: UploadMeta,
  ignoredForDetection: boolean,
): { testCase: TestCase; dirty: boolean } | null {
  let tc = exists ? stored : newTestCase(meta.repoKey, id, c, meta.at);
  if (!tc) return null;
  let dirty = !exists;
  if (c.failedAttempts > 0 && !ignoredForDetection) {
    tc = { ...tc, lastFailedAt: meta.at };
    dirty = true;
  }
  return { testCase: tc, dirty };
}

/** Whether a test case can change status now: it failed lately, or is not healthy or quarantined (time alone heals those). */
export function mayChangeStatus(tc: TestCase, since: string): boolean {
  return tc.status !== 'healthy' || tc.quarantinedAt !== null || (tc.lastFailedAt != null && tc.lastFailedAt >= since);
}

/**
 * Whether the detection evidence (`isDetectionEvidence`'s results, this upload's included) gives a
 * test case another status or quarantine: only those need their whole history read.
 */
export function changesOnEvidence(tc: TestCase, evidence: readonly TestResult[], settings: FlakySettings, now: Date): boolean {
  const seen = statusOf(evidence, settings, now);
  return applyVerdict(tc, { status: { to: seen, evidence: { commits: [], uploads: [] } } }, settings.autoQuarantine, now.toISOString()).changed;
}

export interface StatusChange {
  testCase: TestCase;
  events: TestCaseEvent[];
  /** The test became flaky at this upload. */
  newlyFlaky: boolean;
}

/**
 * The change the whole history (30 days, this upload's results included) makes to a test case, with
 * its evidence as the rules define it; null when none (e.g. results stamped later than now, after
 * the clock was set back).
 */
export function statusChange(tc: TestCase, history: readonly TestResult[], settings: FlakySettings, now: Date): StatusChange | null {
  const verdict = evaluate(history, settings, now);
  const change = applyVerdict(tc, { status: { to: verdict.status, evidence: verdict.evidence } }, settings.autoQuarantine, now.toISOString());
  if (!change.changed) return null;
  return { testCase: change.testCase, events: change.events, newlyFlaky: verdict.status === 'flaky' && tc.status !== 'flaky' };
}

export interface UploadOutcome {
  uploadId: string;
  commitSha: string;
  cases: readonly IdentifiedCase[];
  truncatedNames: number;
  ignoredForDetection: boolean;
  /** Test cases quarantined before this upload's results arrived (flaky-tests.md: only these are forgiven). */
  quarantinedBefore: ReadonlySet<string>;
  /** Test cases as the upload leaves them (those read or written). */
  after: ReadonlyMap<string, TestCase>;
  newlyFlaky: readonly string[];
}

/** The upload's answer (stored with it: a repeated uploadId answers the same). */
export function uploadAnswer(o: UploadOutcome): UploadAnswer {
  const failedCases = o.cases.filter(({ c }) => c.outcome === 'failed');
  const forgiven = failedCases.filter(({ id }) => o.quarantinedBefore.has(id));
  return {
    uploadId: o.uploadId,
    commitSha: o.commitSha,
    tests: o.cases.length,
    failed: failedCases.length,
    skipped: o.cases.filter(({ c }) => c.outcome === 'skipped').length,
    quarantinedFailures: forgiven.length,
    newlyFlaky: [...o.newlyFlaky],
    ignoredForDetection: o.ignoredForDetection,
    quarantinedFailedTests: forgiven.map(({ id, c }) => named(id, c)),
    failedTests: failedCases.slice(0, MAX_NAMED_FAILURES).map(({ id, c }) => named(id, c)),
    newlyFlakyTests: o.newlyFlaky.map((id) => named(id, o.after.get(id)!)),
    newlyQuarantinedFailures: failedCases.filter(({ id }) => !o.quarantinedBefore.has(id) && (o.after.get(id)?.quarantinedAt ?? null) !== null).length,
    truncatedNames: o.truncatedNames,
    ...(o.cases.length === 0 ? { note: 'the upload holds no testcase: nothing to learn from it' } : {}),
  };
}

/** What the queue learns of the upload's failed tests; none from a broken runner's upload (it decides as without results). */
export function failedTestsForQueue(o: UploadOutcome): FailedTest[] {
  if (o.ignoredForDetection) return [];
  return o.cases
    .filter(({ c }) => c.outcome === 'failed')
    .map(({ id, c }) => ({
      testCaseId: id,
      name: c.name,
      knownFlaky: o.after.get(id)?.status === 'flaky',
      quarantined: (o.after.get(id)?.quarantinedAt ?? null) !== null,
      ...(c.firstFailureLine === undefined ? {} : { firstFailureLine: c.firstFailureLine }),
    }));
}

function named(id: string, t: { name: string; classname: string | null; file: string | null }): NamedTest {
  return { test_case_id: id, name: t.name, classname: t.classname, file: t.file };
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

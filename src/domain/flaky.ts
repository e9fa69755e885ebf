import type { QuarantineSetting, TestStatus } from './quarantine.js';

export const TEST_OUTCOMES = ['passed', 'failed', 'skipped'] as const;
export type TestOutcome = (typeof TEST_OUTCOMES)[number];

/** What identifies a test case within a repository (flaky-tests.md, "Identity"). */
export interface TestIdentity {
  file: string | null;
  classname: string | null;
  parent: string | null;
  name: string;
  variant: string | null;
}

/** One test case's result in one upload: its final outcome and how its attempts (retries) went. */
export interface TestResult {
  repoKey: string;
  testCaseId: string;
  uploadId: string;
  commitSha: string;
  branch: string | null;
  /** The last attempt's outcome; `skipped` only when every attempt was skipped. */
  outcome: TestOutcome;
  failedAttempts: number;
  passedAttempts: number;
  at: string;
  /** From an upload under infrastructure protection: kept, but never evidence. */
  ignoredForDetection: boolean;
}

/** The answer of POST /flaky-tests/upload; stored, so a repeated uploadId answers the same. */
/** A test case as an upload answer names it. */
export interface NamedTest {
  test_case_id: string;
  name: string;
  classname: string | null;
  file: string | null;
}

/** An upload answer names at most this many failed tests (a broken build can fail thousands). */
export const MAX_NAMED_FAILURES = 100;

export interface UploadAnswer {
  uploadId: string;
  commitSha: string;
  tests: number;
  failed: number;
  skipped: number;
  /** Failures of tests quarantined before this upload's results arrived: the ones CI may forgive. */
  quarantinedFailures: number;
  newlyFlaky: string[];
  ignoredForDetection: boolean;
  /** Beyond the spec: the forgiven failures by name, so the CI wrapper can list them. */
  quarantinedFailedTests: NamedTest[];
  /** Beyond the spec: the failed tests by name (the first MAX_NAMED_FAILURES), quarantined or not. Absent in answers stored by older versions. */
  failedTests?: NamedTest[];
  /** Beyond the spec: the tests of `newlyFlaky` by name. Absent in answers stored by older versions. */
  newlyFlakyTests?: NamedTest[];
  /**
   * Failures of tests this very upload quarantined: not forgiven to the run that produced them (its
   * evidence counts for the next runs). Absent from answers stored before it existed.
   */
  newlyQuarantinedFailures?: number;
  /** Names over the length limit were cut to it. */
  truncatedNames: number;
  /** Said when the body parsed but held no testcase. */
  note?: string;
}

export interface TestUpload {
  repoKey: string;
  uploadId: string;
  commitSha: string;
  branch: string | null;
  prNumber: number | null;
  jobName: string | null;
  variant: string | null;
  at: string;
  answer: UploadAnswer;
}

/** What the detector reads at an upload besides the latest flaky commits (flaky/detection-rules.ts). */
export interface DetectionScope {
  targetBranches: string[];
  /** The upload's commit. */
  commitSha: string;
  /** How many of the latest flaky commits: `flakyMinEvents`. */
  flakyCommits: number;
  /** The upload's time. */
  until: string;
}

/** Per-repository detection and quarantine settings (flaky-tests.md, "Detection"). */
export interface FlakySettings {
  flakyWindowDays: number;
  flakyMinEvents: number;
  brokenRuns: number;
  flakyRecoveryDays: number;
  autoQuarantine: boolean;
  /** Where fail-then-pass across commits and broken runs count. */
  targetBranches: string[];
}

export const DEFAULT_FLAKY_SETTINGS: FlakySettings = {
  flakyWindowDays: 14,
  flakyMinEvents: 1,
  brokenRuns: 5,
  flakyRecoveryDays: 7,
  autoQuarantine: true,
  targetBranches: ['main', 'master'],
};

/** The commits and uploads that justified a status change. */
export interface Evidence {
  commits: string[];
  uploads: string[];
}

/** One line of a test case's history: a status change, or a quarantine (setting) change. */
export type TestCaseEvent =
  | { kind: 'status'; repoKey: string; testCaseId: string; at: string; from: TestStatus; to: TestStatus; evidence: Evidence }
  | {
      kind: 'quarantine_setting';
      repoKey: string;
      testCaseId: string;
      at: string;
      from: QuarantineSetting;
      to: QuarantineSetting;
      by: string;
      reason: string | null;
    }
  | { kind: 'quarantine'; repoKey: string; testCaseId: string; at: string; quarantined: boolean };

import type { Entry } from '../domain/entry.js';
import { MAX_FAILED_TESTS_KEPT, type FailedTest, type TestRun } from '../domain/run.js';
import { defaultSettings, type QueueSettings } from '../domain/settings.js';

/**
 * What a failed run's test results say about its failure (flaky-tests.md, "The queue and flakes"):
 * - `flaky`: every failed test is known flaky or quarantined — a reason to rerun, never to merge;
 * - `real`: at least one failed test is not known flaky;
 * - `awaiting`: no results yet, and the queue still waits for them (`testResultsWaitSeconds`; only
 *   once its CI is known to upload results at all);
 * - `unknown`: no usable results (none came in time, none failed, a conflict, a timeout): the
 *   rules of queue-semantics.md apply as before.
 */
export type FailureKind = 'flaky' | 'real' | 'awaiting' | 'unknown';

const DEFAULTS = defaultSettings();

/** What of the queue the rules read: its settings, and whether its CI is known to upload results. */
export interface ResultsContext {
  settings: QueueSettings;
  testResultsSeenAt?: string | undefined;
}

/** Queues stored before these settings existed read as the defaults. */
export function testResultSettings(s: QueueSettings): Pick<QueueSettings, 'flakyTestRetries' | 'skipRetryOnRealFailure' | 'testResultsWaitSeconds'> {
  return {
    flakyTestRetries: s.flakyTestRetries ?? DEFAULTS.flakyTestRetries,
    skipRetryOnRealFailure: s.skipRetryOnRealFailure ?? DEFAULTS.skipRetryOnRealFailure,
    testResultsWaitSeconds: s.testResultsWaitSeconds ?? DEFAULTS.testResultsWaitSeconds,
  };
}

export function classifyFailure(q: ResultsContext, run: TestRun, now: Date): FailureKind {
  if (run.status !== 'failed' || run.conflictEntryId !== null) return 'unknown';
  const failed = run.testResults?.failedTests;
  if (failed === undefined) return resultsWaitEndsAt(q, run) > now.getTime() ? 'awaiting' : 'unknown';
  if (failed.length === 0) return 'unknown';
  return failed.every(isForgivable) ? 'flaky' : 'real';
}

/** When the queue stops waiting for the results of a failed run (epoch ms); -Infinity if it does not wait. */
export function resultsWaitEndsAt(q: ResultsContext, run: TestRun): number {
  if (q.testResultsSeenAt === undefined) return -Infinity;
  if (run.status !== 'failed' || run.testResults !== undefined || run.finishedAt === null) return -Infinity;
  return Date.parse(run.finishedAt) + testResultSettings(q.settings).testResultsWaitSeconds * 1000;
}

export function isForgivable(t: FailedTest): boolean {
  return t.knownFlaky || t.quarantined;
}

/** Reruns already spent on flaky tests by this entry while in the queue. */
export function flakyRerunsUsed(e: Entry): number {
  return e.history.filter((h) => h.reason.code === 'flaky_tests').length;
}

/** The failed tests by name, at most a few, for a reason message. */
export function nameTests(tests: readonly FailedTest[], max = 5): string {
  const names = tests.slice(0, max).map((t) => t.name);
  return tests.length > max ? `${names.join(', ')} and ${tests.length - max} more` : names.join(', ');
}

/**
 * The failed tests a run keeps: all of them up to MAX_FAILED_TESTS_KEPT, else that many, those not
 * known flaky first (so a run with a real failure still reads as real), and how many more there were.
 */
export function keptFailedTests(tests: readonly FailedTest[]): { failedTests: FailedTest[]; more: number } {
  if (tests.length <= MAX_FAILED_TESTS_KEPT) return { failedTests: [...tests], more: 0 };
  const failedTests = [...tests.filter((t) => !isForgivable(t)), ...tests.filter(isForgivable)].slice(0, MAX_FAILED_TESTS_KEPT);
  return { failedTests, more: tests.length - failedTests.length };
}

/** Merges newly uploaded failed tests into what the run already knows (several uploads per commit). */
export function mergeFailedTests(known: readonly FailedTest[], incoming: readonly FailedTest[]): FailedTest[] {
  const byId = new Map(known.map((t) => [t.testCaseId, t]));
  for (const t of incoming) byId.set(t.testCaseId, { ...t });
  return [...byId.values()];
}

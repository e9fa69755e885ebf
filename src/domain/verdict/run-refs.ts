import type { FailedTest, TestRun } from '../run.js';
import { MAX_EVIDENCE_RUNS, MAX_EVIDENCE_TESTS, MAX_REF_PRS, type RunRef, type VerdictCheck, type VerdictTest } from './verdict.js';

/** The runs of a queue document that held the entry, newest first. */
export function runsHolding(runs: readonly TestRun[], entryId: string): TestRun[] {
  return runs.filter((r) => r.prs.some((p) => p.entryId === entryId)).sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** Whether the entry is one of the run's own PRs (its unit), not one it was built on. */
export function isOwnIn(run: TestRun, entryId: string): boolean {
  return run.prs.some((p) => p.entryId === entryId) && !run.dependencyEntryIds.includes(entryId);
}

export function endedBadly(run: TestRun): boolean {
  return run.status === 'failed' || run.status === 'timed_out';
}

export function runMinutes(run: TestRun, at: string): number {
  const end = Date.parse(run.finishedAt ?? at);
  return Math.max(0, Math.round((end - Date.parse(run.createdAt)) / 60_000));
}

export function failingChecksOf(run: TestRun): VerdictCheck[] {
  const required = new Set(run.requiredStatuses);
  return run.statusChecks
    .filter((c) => (c.state === 'failure' || c.state === 'error') && (required.size === 0 || required.has(c.context)))
    .map((c) => ({ context: c.context, state: c.state, url: c.url }));
}

export function runRef(run: TestRun, at: string): RunRef {
  const failing = failingChecksOf(run).find((c) => c.url !== null);
  const any = run.statusChecks.find((c) => c.url !== null);
  return {
    id: run.id,
    kind: run.kind,
    status: run.status === 'creating' ? 'pending' : run.status,
    prNumbers: run.prs.slice(-MAX_REF_PRS).map((p) => p.prNumber),
    prCount: run.prs.length,
    url: failing?.url ?? any?.url ?? null,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    minutes: runMinutes(run, at),
  };
}

/** The refs of the first MAX_EVIDENCE_RUNS runs (callers pass them newest first, or oldest first for bisection). */
export function runRefs(runs: readonly TestRun[], at: string): RunRef[] {
  return runs.slice(0, MAX_EVIDENCE_RUNS).map((r) => runRef(r, at));
}

/** The first MAX_EVIDENCE_TESTS failed tests of the runs, for evidence. */
export function evidenceTests(runs: readonly TestRun[]): VerdictTest[] {
  return testsOf(runs).slice(0, MAX_EVIDENCE_TESTS);
}

/** The failed tests of the runs, each once (by test case), with the runs it failed in. */
export function testsOf(runs: readonly TestRun[], keep: (t: FailedTest) => boolean = () => true): VerdictTest[] {
  const byId = new Map<string, VerdictTest>();
  for (const run of runs) {
    for (const t of run.testResults?.failedTests ?? []) {
      if (!keep(t)) continue;
      const seen = byId.get(t.testCaseId);
      if (seen) {
        if (!seen.runIds.includes(run.id)) seen.runIds.push(run.id);
        continue;
      }
      byId.set(t.testCaseId, {
        testCaseId: t.testCaseId,
        name: t.name,
        firstFailureLine: t.firstFailureLine ?? null,
        knownFlaky: t.knownFlaky,
        quarantined: t.quarantined,
        runIds: [run.id],
      });
    }
  }
  return [...byId.values()];
}

/** Every check of the runs that failed or errored, each context once (the newest run's). */
export function checksOf(runs: readonly TestRun[]): VerdictCheck[] {
  const byContext = new Map<string, VerdictCheck>();
  for (const run of runs) for (const c of failingChecksOf(run)) if (!byContext.has(c.context)) byContext.set(c.context, c);
  return [...byContext.values()];
}

/** A CI problem rather than a test failure: timed out, or only errored checks and no failed test. */
export function isInfrastructureFailure(run: TestRun): boolean {
  if (run.status === 'timed_out') return true;
  if (run.status !== 'failed' || run.conflictEntryId) return false;
  const checks = failingChecksOf(run);
  return checks.length > 0 && checks.every((c) => c.state === 'error') && (run.testResults?.failedTests.length ?? 0) === 0;
}

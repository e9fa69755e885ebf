import type { Entry } from '../../domain/entry.js';
import { reason } from '../../domain/reasons.js';
import type { Unit } from '../../domain/queue.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { Sink } from '../draft.js';
import { failureIsConfirmed } from '../suspicion.js';
import { isForgivable } from '../test-results.js';
import { isProven, unitState } from '../units.js';

/** A finished run with what it says about each test: the ids of the tests it failed. */
interface RunTests {
  run: TestRun;
  held: ReadonlySet<string>;
  failed: ReadonlySet<string>;
}

/**
 * Rule 4, blame by test (single mode; docs/queue-rules.md). A test that is not known flaky and
 * failed in several runs was broken by a PR that all of them hold; a run that ran it without failing
 * it clears what it held. When one unproven PR is left, the queue blames it at once, while its own
 * run may still be going: the runs behind it are rebuilt without it, instead of failing one after
 * the other until its own run ends. Blame only leaves a PR out; it fails on a run of its own.
 */
export function blameByTests(s: Sink): void {
  const d = s.d;
  // No test results, nothing to blame by (a queue whose CI never uploaded any).
  if (d.settings.mode === 'parallel' || d.testResultsSeenAt === undefined) return;
  const failing = new Map<string, { name: string; runs: RunTests[] }>();
  const ran: RunTests[] = [];
  for (const run of d.runs.values()) {
    const withResults = run.status === 'failed' && run.conflictEntryId === null && run.testResults !== undefined;
    if (run.status !== 'passed' && !withResults) continue;
    const failedTests = run.testResults?.failedTests ?? [];
    const tests: RunTests = { run, held: new Set(run.prs.map((p) => p.entryId)), failed: new Set(failedTests.map((t) => t.testCaseId)) };
    ran.push(tests);
    for (const t of failedTests) {
      if (isForgivable(t)) continue;
      const f = failing.get(t.testCaseId) ?? { name: t.name, runs: [] };
      f.runs.push(tests);
      failing.set(t.testCaseId, f);
    }
  }
  for (const [testId, { name, runs }] of failing) {
    const candidates = heldByAll(s, runs);
    for (const r of ran) {
      if (candidates.size === 0) break;
      if (r.failed.has(testId)) continue;
      for (const id of candidates) if (clears(s, r, id, runs)) candidates.delete(id);
    }
    if (candidates.size !== 1) continue;
    const unit = d.unitOfEntry([...candidates][0]!);
    if (unit && unit.entryIds.length === 1) blame(s, unit, name);
  }
}

/**
 * The PRs that every failing run holds and that are not proven good. A removed PR stays: it may be
 * the culprit. A PR that re-entered the queue (its rerun passed) is judged on runs since then only.
 */
function heldByAll(s: Sink, runs: readonly RunTests[]): Set<string> {
  const out = new Set<string>();
  for (const p of runs[0]!.run.prs) {
    const e = s.d.entry(p.entryId);
    if (isProven(e)) continue;
    if (runs.every((r) => r.held.has(p.entryId) && (e?.readyAt == null || r.run.createdAt >= e.readyAt))) out.add(p.entryId);
  }
  return out;
}

/**
 * Whether a run that did not fail the test clears `entryId` of breaking it: it held the PR and
 * everything the failing runs held ahead of it (on its test branch, or merged before it was built).
 * A run without a PR's partner in a logical conflict says nothing about that PR.
 */
function clears(s: Sink, r: RunTests, entryId: string, failing: readonly RunTests[]): boolean {
  if (!r.held.has(entryId)) return false;
  for (const f of failing) {
    for (const p of f.run.prs) {
      if (p.entryId === entryId) break;
      if (!r.held.has(p.entryId) && !mergedBefore(s.d.entry(p.entryId), r.run.createdAt)) return false;
    }
  }
  return true;
}

function mergedBefore(e: Entry | undefined, at: string): boolean {
  if (e?.state !== 'MERGED') return false;
  const merged = e.history.findLast((h) => h.state === 'MERGED');
  return merged !== undefined && merged.at <= at;
}

/** Only a unit of one PR whose run is still deciding it, and not already confirmed failing. */
function blame(s: Sink, unit: Unit, testName: string): void {
  const d = s.d;
  const state = unitState(d, unit);
  const run = d.run(d.entry(unit.entryIds[0]!)?.testRunId);
  if (!run) return;
  if (state === 'TESTING' && !isInFlight(run)) return; // its own verdict is in: applyOutcomes reads it first
  if (state !== 'TESTING' && state !== 'PENDING_FAILURE') return;
  if (state === 'PENDING_FAILURE' && failureIsConfirmed(d, unit)) return;
  const why = reason(
    'failure_confirmed',
    `blamed for "${testName}": of the pull requests not proven good, it is the only one that every run failing this test held and no run passing it cleared; the pull requests behind it are now tested without it`,
  );
  for (const e of d.unitEntries(unit)) s.emit({ type: 'transition', entryId: e.id, to: 'PENDING_FAILURE', reason: why });
}

import type { Entry, Transition } from '../entry.js';
import type { QueueDoc } from '../queue.js';
import type { ReasonCode } from '../reasons.js';
import type { TestRun } from '../run.js';
import { findCulprits } from './culprits.js';
import { checksOf, endedBadly, evidenceTests, isInfrastructureFailure, isOwnIn, runMinutes, runRefs, runsHolding, testsOf } from './run-refs.js';
import { MAX_EVIDENCE_TESTS, type CulpritEvidence, type Verdict } from './verdict.js';

/**
 * Which transitions carry a verdict (docs/verdicts.md, the table; docs/queue-rules.md, "Verdicts"):
 * every removal (FAILED, CANCELLED) and every restart. Reason codes not named here (submitted, ready,
 * test_started, tests_passed, merged, a failure still being checked…) carry none.
 */
const RESTARTS: Partial<Record<ReasonCode, 'bystander' | 'retry' | 'infrastructure' | 'manual' | 'policy'>> = {
  ahead_failed: 'bystander',
  ahead_cancelled: 'bystander',
  batch_split: 'bystander',
  bisection_cleared: 'bystander',
  readmitted: 'bystander',
  retry_passed: 'retry',
  restarted_by_user: 'manual',
  base_moved: 'manual',
  ahead_merged_elsewhere: 'manual',
  mode_switch: 'manual',
  urgent_preemption: 'policy',
  all_targets_ahead: 'policy',
  merge_held: 'policy',
  // The spin guard held it (restart-loop.ts): the queue's own policy against rebuilding without end.
  restart_loop: 'policy',
  // A run that ended in a CI error, retried within the infrastructure budget (docs/queue-rules.md, "Restart budgets").
  infrastructure_retry: 'infrastructure',
  // Held past a restart budget: a bystander's (from PENDING) or an infrastructure one (from PENDING_FAILURE).
  restart_budget: 'bystander',
};

/**
 * Whether the step at `index` restarted the PR as a bystander: the verdict it carries is `bystander`
 * (a suspect re-admitted after its own failed runs is forgiven as a flake instead, see deriveVerdict).
 * Restart budgets count these (src/planner/phases/restart-budget.ts).
 */
export function isBystanderRestart(history: readonly Transition[], index: number): boolean {
  const step = history[index]!;
  if (step.state !== 'PENDING' || step.reason.code === 'restart_budget') return false;
  if (RESTARTS[step.reason.code] !== 'bystander') return false;
  return !(step.reason.code === 'readmitted' && history[index - 1]?.state === 'PENDING_FAILURE');
}

const REMOVALS: Partial<Record<ReasonCode, 'manual' | 'policy' | 'conflict' | 'git_host' | 'timeout'>> = {
  cancelled_by_user: 'manual',
  queue_deleted: 'manual',
  merged_elsewhere: 'manual',
  pr_updated: 'policy',
  pr_closed: 'policy',
  base_changed: 'policy',
  converted_to_draft: 'policy',
  not_mergeable: 'policy',
  merge_conflict: 'conflict',
  github_error: 'git_host',
  test_timeout: 'timeout',
};

/** Whether the transition at `index` of the entry's history carries a verdict. */
export function carriesVerdict(step: Transition): boolean {
  if (step.state === 'FAILED' || step.state === 'CANCELLED') return true;
  if (step.state === 'MERGED') return false;
  return RESTARTS[step.reason.code] !== undefined;
}

/**
 * The verdict of the transition `entry.history[index]`, from the queue document it was committed in
 * (its runs, its other entries). Pure: the same document gives the same verdict.
 */
export function deriveVerdict(queue: QueueDoc, entry: Entry, index: number): Verdict | null {
  const step = entry.history[index];
  if (!step || !carriesVerdict(step)) return null;
  const { code, message } = step.reason;
  const at = step.at;
  const held = runsHolding(queue.runs, entry.id).filter((r) => r.createdAt <= at);
  const own = held.filter((r) => isOwnIn(r, entry.id) && endedBadly(r));
  if (step.state === 'FAILED' || step.state === 'CANCELLED') {
    const kind = REMOVALS[code];
    if (kind === 'manual' || kind === 'policy') return { code: kind, message: line(kind, message), at, evidence: { cause: code, detail: message } };
    if (kind === 'conflict') return conflict(queue, entry, held, code, message, at);
    if (kind === 'git_host' || kind === 'timeout') return infrastructure(kind, own, code, message, at, entry);
    // A stack member above the layer that broke leaves with it: never the culprit itself.
    if (code === 'stack_member_failed') return bystander(queue, entry, held, code, message, at);
    if (step.state === 'CANCELLED') return { code: 'policy', message: line('policy', message), at, evidence: { cause: code, detail: message } };
    return failureVerdict(queue, entry, own, code, message, at);
  }
  const kind = RESTARTS[code];
  const wasSuspect = entry.history[index - 1]?.state === 'PENDING_FAILURE';
  if (kind === 'infrastructure') return infrastructure('error', own, code, message, at, entry);
  if (code === 'restart_budget' && wasSuspect) return { ...infrastructure('error', own, code, message, at, entry), message: `infrastructure, ${message}` };
  if (code === 'restart_budget') return { ...bystander(queue, entry, held, code, message, at), message: `bystander, ${message}` };
  if (kind === 'manual' || kind === 'policy') return { code: kind, message: line(kind, message), at, evidence: { cause: code, detail: message } };
  if (kind === 'retry' || (code === 'readmitted' && wasSuspect && own.length > 0)) {
    if (own.length > 0 && own.every(isInfrastructureFailure)) return infrastructure('error', own, code, message, at, entry);
    return flaky(own, code, message, at, entry);
  }
  return bystander(queue, entry, held, code, message, at);
}

function bystander(queue: QueueDoc, entry: Entry, held: TestRun[], code: ReasonCode, message: string, at: string): Verdict {
  const culprits = findCulprits(queue, entry, held);
  const paid = held.filter((r) => r.status !== 'passed' && r.prs.some((p) => culprits.some((c) => c.entryId === p.entryId)));
  const names = culprits.map((c) => `#${c.prNumber}`).join(', ');
  return {
    code: 'bystander',
    message: names ? `not this pull request: ${names} broke the run it was in; retested without it` : `not this pull request: ${message}`,
    at,
    evidence: {
      cause: code,
      culprits,
      cost: { runs: paid.length, minutes: paid.reduce((sum, r) => sum + runMinutes(r, at), 0) },
      runs: runRefs(paid, at),
    },
  };
}

function failureVerdict(queue: QueueDoc, entry: Entry, own: TestRun[], code: ReasonCode, message: string, at: string): Verdict {
  if (own.length > 0 && own.every(isInfrastructureFailure)) return infrastructure('error', own, code, message, at, entry);
  const tests = testsOf(own);
  if (tests.length > 0 && tests.every((t) => t.knownFlaky || t.quarantined)) return flaky(own, code, message, at, entry);
  return { code: 'culprit', message: culpritLine(tests, message), at, evidence: culpritEvidence(queue, entry, own, at) };
}

function culpritEvidence(queue: QueueDoc, entry: Entry, own: TestRun[], at: string): CulpritEvidence {
  const bisected = [...entry.history].reverse().find((t) => t.reason.code === 'bisection_culprit');
  const blamed = entry.history.find((t) => t.reason.code === 'failure_confirmed' && / test /.test(t.reason.message));
  const units = new Set(runsHolding(queue.runs, entry.id).filter((r) => r.kind === 'bisection').map((r) => r.unitId));
  const bisectionRuns = queue.runs.filter((r) => r.kind === 'bisection' && units.has(r.unitId)).sort((a, b) => (a.createdAt < b.createdAt ? -1 : 1));
  const firstFailure = own.at(-1)?.createdAt;
  const without = firstFailure
    ? queue.runs.find((r) => r.status === 'passed' && r.createdAt >= firstFailure && !r.prs.some((p) => p.entryId === entry.id))
    : undefined;
  return {
    failedTests: evidenceTests(own),
    failingChecks: checksOf(own),
    runs: runRefs(own, at),
    isolation: bisected
      ? { method: 'bisection', bisectionRuns: runRefs(bisectionRuns, at), step: bisected.reason.message }
      : blamed
        ? { method: 'test_blame', bisectionRuns: [], step: blamed.reason.message }
        : { method: 'own_run', bisectionRuns: [], step: own.length > 1 ? `its own run failed ${own.length} times (reruns included)` : 'its own run failed' },
    passedWithoutIt: without ? { runId: without.id } : null,
  };
}

function flaky(own: TestRun[], code: ReasonCode, message: string, at: string, entry: Entry): Verdict {
  const tests = testsOf(own);
  const names = tests.slice(0, 3).map((t) => t.name).join(', ') + (tests.length > 3 ? ` and ${tests.length - 3} more` : '');
  return {
    code: 'flaky',
    message: names ? `flaky: ${names} failed and passed on a rerun; not this pull request` : `flaky: a run failed and passed on a rerun; ${message}`,
    at,
    evidence: { cause: code, tests: tests.slice(0, MAX_EVIDENCE_TESTS), failingChecks: checksOf(own), runs: runRefs(own, at), reruns: Math.max(entry.retriesUsed, own.length > 0 ? own.length : 0) },
  };
}

function infrastructure(kind: 'error' | 'timeout' | 'git_host', own: TestRun[], code: ReasonCode, message: string, at: string, entry: Entry): Verdict {
  const checks = checksOf(own);
  const words = checks.map((c) => `${c.context}: ${c.state}`).join(', ');
  const what = kind === 'timeout' ? 'CI gave no verdict in time' : kind === 'git_host' ? 'the git host failed' : `CI errored (${words})`;
  return {
    code: 'infrastructure',
    message: `infrastructure: ${what}; not this pull request's tests`,
    at,
    evidence: { cause: code, kind, checks, detail: message, runs: runRefs(own, at), reruns: Math.max(0, own.length - 1, entry.retriesUsed) },
  };
}

function conflict(queue: QueueDoc, entry: Entry, held: TestRun[], code: ReasonCode, message: string, at: string): Verdict {
  const run = held.find((r) => r.conflictEntryId === entry.id);
  const at0 = run ? run.prs.findIndex((p) => p.entryId === entry.id) : -1;
  const before = at0 > 0 ? run!.prs[at0 - 1] : undefined;
  const withCommit = before ? null : (run?.baseSha ?? queue.targetSha);
  const what = before ? `#${before.prNumber}` : withCommit ? `the target branch at ${withCommit.slice(0, 7)}` : 'the target branch';
  return {
    code: 'conflict',
    message: `conflict: it does not merge cleanly with ${what}`,
    at,
    evidence: { cause: code, withPrNumber: before?.prNumber ?? null, withCommit, runId: run?.id ?? null, detail: message },
  };
}

function culpritLine(tests: { name: string }[], message: string): string {
  if (tests.length === 0) return `culprit: this pull request fails the required checks (${message})`;
  const shown = tests.slice(0, 3).map((t) => t.name).join(', ');
  return `culprit: this pull request fails ${shown}${tests.length > 3 ? ` and ${tests.length - 3} more` : ''}`;
}

function line(kind: 'manual' | 'policy', message: string): string {
  return `${kind}: ${message}`;
}

import { reason, type Reason } from '../../domain/reasons.js';
import type { Unit } from '../../domain/queue.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { Sink } from '../draft.js';
import { evidenceFor } from '../evidence.js';
import { failureReason } from '../failure-reason.js';
import { dropResultsWith, restartUnit } from '../invalidation.js';
import { placementIndex } from '../placement.js';
import { createRun } from '../run-builder.js';
import { ContentWalk } from '../run-content.js';
import { containsEntry } from '../run-status.js';
import { bisectBatch, bisectionStart } from '../bisect-batch.js';
import { decidingRun, entriesBefore, isLanded, isProven, isRemoved, prLabel, unitPriority } from '../units.js';
import { classifyFailure, flakyRerunsUsed, nameTests, testResultSettings } from '../test-results.js';
import { SuspectExclusion, evidenceConfirmsFailure, failureIsConfirmed, holdsStack, wasOvertaken } from '../suspicion.js';
import type { Draft } from '../draft.js';
import type { Entry } from '../../domain/entry.js';
import { restartBudgetsOf } from '../../domain/settings.js';
import { isInfrastructureFailure } from '../../domain/verdict/run-refs.js';
import { ciWords, holdForInfrastructure, infrastructureRetriesUsed } from './restart-budget.js';

/**
 * Suspects (PENDING_FAILURE) are resolved here (rules 4-6).
 *
 * A suspect is rerun with the same content, beside the queue, up to `flakeRetries` times — at once,
 * even while PRs ahead of it in its run are still undecided, so that its verdict is in when they
 * are. A passing rerun clears it: it goes back to PENDING at its own position while the units behind
 * still build on it, or re-enters at the tail once they were rebuilt without it (`retry_passed`).
 * It FAILS once `1 + flakeRetries` of its runs failed with everything ahead of it proven good and
 * its flake evidence is in without a pass. A PR ahead of it that is removed, moves behind it or is
 * now left out of its position re-admits it (rule 5).
 */
export function resolveSuspects(s: Sink): void {
  const d = s.d;
  const exclusion = new SuspectExclusion(d);
  for (const unit of d.units.slice()) {
    const entries = d.unitEntries(unit);
    if (entries[0]?.state !== 'PENDING_FAILURE') continue;
    const run = decidingRun(d, unit);
    if (!run) {
      readmit(s, unit, undefined, reason('readmitted', 'its test run is gone; retesting it'));
      continue;
    }
    if (!failureIsConfirmed(d, unit) && evidenceConfirmsFailure(d, unit)) {
      for (const e of entries) {
        s.emit({
          type: 'transition',
          entryId: e.id,
          to: 'PENDING_FAILURE',
          reason: reason('failure_confirmed', 'its failure was confirmed by another run: the pull requests behind it are now tested without it'),
        });
      }
    }
    const own = new Set(unit.entryIds);
    const deps = run.prs.map((p) => p.entryId).filter((id) => !own.has(id) && !isLanded(d.entry(id)));
    const stale = staleDependency(d, unit, deps, exclusion);
    if (stale) {
      if (!leftOutBehind(d, exclusion, unit)) {
        readmit(s, unit, run, stale);
      } else if (d.state === 'running') {
        // Single mode: the units behind were rebuilt without it, and re-admitting it at its place
        // would rebuild them all once more. It is rerun on the PRs ahead of it now instead, and
        // re-enters at the tail if that passes (rule 6; docs/readmission.md).
        if (isInFlight(run)) s.emit({ type: 'cancelRun', runId: run.id, reason: stale.message });
        if (unit.entryIds.length > 1 && !d.settings.batch) {
          // A stack goes to the tail at once: a rerun that passes would send it there for one run
          // more, and a rerun on unresolved PRs ahead was restarted with each of them that failed.
          // Not with batching: at the tail it would be batched with PRs that then fail with it.
          reenterAtTail(s, unit, reason('readmitted', `${stale.message}: it re-enters the queue at the tail`));
        } else {
          rerun(s, unit, run, false, stale.message);
        }
      }
      continue;
    }
    const newRuns = d.state === 'running';
    if (userAskedForARerun(d.entry(unit.entryIds[0]!)!) && !isInFlight(run)) {
      if (newRuns) rerun(s, unit, run, false, 'rerun requested by a user');
      continue;
    }
    if (isInFlight(run)) continue;
    const unresolved = deps.some((id) => d.entry(id)!.state !== 'TESTS_PASSED');

    if (run.status === 'passed') {
      if (unresolved) continue; // a user's rerun with PRs ahead still undecided
      // While the units behind build on it, it simply goes back to its place; once they were
      // rebuilt without it, it re-enters at the tail (rule 6) rather than restart them all.
      const at = d.unitIndex().get(unit.id)!;
      const overtaken = wasOvertaken(d.entry(unit.entryIds[0]!)!);
      if (overtaken || exclusion.excludes(unit, at, at + 1)) {
        // PRs that merged past it meanwhile are not in the rerun: a verdict, not a proof.
        if (overtaken) s.emit({ type: 'cancelRun', runId: run.id, reason: 'pull requests merged past it since this rerun was built' });
        reenterAtTail(s, unit, reason('retry_passed', 'its rerun passed: it re-enters the queue at the tail'));
      } else if (d.settings.mode !== 'parallel') {
        restartUnit(s, unit, reason('readmitted', 'its rerun passed: it is tested again at its place'));
      }
      // Parallel mode: its lane still builds on it, so the passed rerun proves it (see decideMerges).
      continue;
    }
    // Rule 5: a suspect ahead in its run explains its failure; it is re-examined once that resolves.
    if (deps.some((id) => d.entry(id)!.state === 'PENDING_FAILURE')) continue;
    if (run.status === 'cancelled') {
      if (newRuns) rerun(s, unit, run, false, 'its rerun was cancelled; rerunning');
      continue;
    }
    // flaky-tests.md: the run's test results tell a flake from a real failure.
    const failure = classifyFailure({ settings: d.settings, testResultsSeenAt: d.testResultsSeenAt }, run, d.now);
    if (failure === 'awaiting') continue;
    const first = d.entry(unit.entryIds[0]!)!;
    // A CI error is no verdict on the code: retried within the infrastructure budget, then held.
    if (failure !== 'real' && failure !== 'flaky' && run.status === 'failed' && isInfrastructureFailure(run)) {
      const budget = restartBudgetsOf(d.settings).infrastructure;
      const used = infrastructureRetriesUsed(first);
      if (used >= budget) holdForInfrastructure(s, unit, run);
      else if (newRuns) rerun(s, unit, run, false, `CI errored (${ciWords(run)}): retry ${used + 1} of ${budget}`, 'infrastructure_retry');
      continue;
    }
    const flakyReruns = flakyRerunsUsed(first);
    if (failure === 'flaky' && flakyReruns < testResultSettings(d.settings).flakyTestRetries) {
      const failed = run.testResults!.failedTests;
      const why = `its run failed only on known flaky or quarantined tests (${nameTests(failed)}): rerun ${flakyReruns + 1} of ${testResultSettings(d.settings).flakyTestRetries}`;
      if (newRuns) rerun(s, unit, run, false, why, 'flaky_tests');
      continue;
    }
    if (unit.entryIds.length > 1) {
      // A batch is bisected rather than rerun whole (the bisection sorts out flakes of its own). In
      // single mode its prefixes are tested at once, on top of the PRs ahead as its own run was
      // (speculation, rule 1); what they name waits until those PRs are resolved. A stack (or a
      // batch holding one) waits instead: every layer holds the ones below it, so its prefixes would
      // each repeat the failure ahead of it (a run per layer for each failure ahead, which
      // bench:queue's stacks showed).
      if (!unresolved || (d.settings.mode !== 'parallel' && !holdsStack(d, unit))) bisectBatch(s, unit, run, !unresolved);
      continue;
    }
    // A failed test not known flaky is a real failure: no rerun is spent on ruling out a flake.
    const real = failure === 'real' && testResultSettings(d.settings).skipRetryOnRealFailure;
    const ownConflict = run.conflictEntryId !== null && own.has(run.conflictEntryId);
    // Neither a conflict of its own nor a real test failure is ruled out by a rerun.
    const noRerun = ownConflict || real;
    const retriesUsed = first.retriesUsed;
    if (!noRerun && retriesUsed < d.settings.flakeRetries) {
      if (newRuns) rerun(s, unit, run, true, `rerun ${retriesUsed + 1} of ${d.settings.flakeRetries} to rule out a flake`);
      continue;
    }
    if (unresolved) continue;
    if (!noRerun && ownFailures(d, unit) < 1 + d.settings.flakeRetries) {
      // A run that failed with a PR ahead that was later restarted does not count: one more rerun.
      if (newRuns) rerun(s, unit, run, false, 'one more rerun: the pull requests ahead of it changed since');
      continue;
    }
    const evidence = evidenceFor(d, unit);
    if (evidence.some(isInFlight)) continue;
    if (evidence.some((r) => r.status === 'passed')) {
      if (!d.settings.canOptimisticallyMerge) {
        reenterAtTail(s, unit, reason('retry_passed', 'a run that contained it passed: it re-enters the queue at the tail'));
      }
      continue;
    }
    fail(s, unit, run);
  }
}

/** Failed runs of the unit (since it last started testing) with everything ahead of it proven good. */
function ownFailures(d: Draft, unit: Unit): number {
  const first = d.entry(unit.entryIds[0]!)!;
  let since = '';
  for (let i = first.history.length - 1; i >= 0; i--) {
    if (first.history[i]!.state === 'TESTING') {
      since = first.history[i]!.at;
      break;
    }
  }
  let n = 0;
  for (const run of d.runs.values()) {
    if (run.unitId !== unit.id || (run.status !== 'failed' && run.status !== 'timed_out') || run.createdAt < since) continue;
    // A bisection prefix that stops before the unit says nothing about it.
    if (!containsEntry(run, first.id)) continue;
    if (entriesBefore(run, unit).every((id) => isProven(d.entry(id)))) n++;
  }
  return n;
}

/**
 * A unit of the suspect's run that no longer stands ahead of it as it did: removed, now behind it (it
 * re-entered at the tail), or a suspect that the suspect's own position now leaves out. Its failure
 * then says nothing any more: it is re-admitted and retested at its position.
 */
function staleDependency(d: Draft, unit: Unit, deps: string[], exclusion: SuspectExclusion): Reason | null {
  const index = d.unitIndex();
  const at = index.get(unit.id)!;
  for (const id of deps) {
    const e = d.entry(id);
    const label = prLabel(e, id);
    if (isRemoved(e)) return reason('readmitted', `${label} ahead of it was removed; retesting it without ${label}`);
    const u = d.unitOfEntry(id);
    if (!u) return reason('readmitted', `${label} ahead of it left the queue; retesting it without ${label}`);
    const depAt = index.get(u.id)!;
    if (depAt > at) return reason('readmitted', `${label}, tested ahead of it, is now behind it; retesting it`);
    if (e!.state === 'PENDING_FAILURE' && exclusion.excludes(u, depAt, at)) {
      return reason('readmitted', `${label} ahead of it failed; retesting it without ${label}`);
    }
  }
  return null;
}

/** A user restarted the suspect (rule 12) and no rerun started since. */
function userAskedForARerun(e: Entry): boolean {
  for (let i = e.history.length - 1; i >= 0; i--) {
    const code = e.history[i]!.reason.code;
    if (code === 'restarted_by_user') return true;
    if (code === 'test_started' || code === 'infrastructure_retry' || e.history[i]!.state !== 'PENDING_FAILURE') return false;
  }
  return false;
}

/**
 * Reruns the suspect. In single mode on the PRs ahead of it as they stand now (the units ahead
 * without the suspects they leave out): a rerun that still held a PR ahead that failed since would
 * fail again for nothing, and one held back until that PR is resolved would leave the suspect waiting
 * for a CI run. When everything ahead has passed, that is the failed run's content less what landed
 * (rule 6). A parallel lane keeps the same content: the lane behind builds on it.
 */
function rerun(s: Sink, unit: Unit, failed: TestRun, countsAsRetry: boolean, why: string, code: 'test_started' | 'flaky_tests' | 'infrastructure_retry' = 'test_started'): void {
  const d = s.d;
  const own = new Set(unit.entryIds);
  const content =
    d.settings.mode === 'parallel'
      ? failed.prs.map((p) => p.entryId).filter((id) => own.has(id) || !isLanded(d.entry(id)))
      : contentNow(d, unit);
  // A culprit named by bisection is rerun as the single unit it now is: a main run.
  const run = createRun(s, unit, content, { kind: 'main', attempt: failed.attempt + 1 });
  for (const e of d.unitEntries(unit)) {
    s.emit({
      type: 'transition',
      entryId: e.id,
      to: 'PENDING_FAILURE',
      reason: reason(code, why),
      set: { testRunId: run.id, ...(countsAsRetry ? { retriesUsed: e.retriesUsed + 1 } : {}) },
    });
  }
}

/** What a run of `unit` would hold if it started now (rule 1 with the suspects left out, rule 4). */
function contentNow(d: Draft, unit: Unit): string[] {
  const walk = new ContentWalk(d);
  for (const u of d.units) {
    if (u.id === unit.id) break;
    walk.push(u);
  }
  return walk.contentFor(unit);
}

/**
 * Single mode: the unit right behind the suspect was rebuilt without it (rule 4). Not a batch: a
 * batch is bisected rather than rerun, and re-admitted as before. A stack (or a batch holding one)
 * not yet being bisected is rerun like a single PR: the units behind left it out at once, and
 * re-admitting it at its place rebuilt them all with it, then all without it again when it failed
 * once more (bench:queue's stacks: about a third of the runs of stacks landed as units).
 */
function leftOutBehind(d: Draft, exclusion: SuspectExclusion, unit: Unit): boolean {
  if (d.settings.mode === 'parallel') return false;
  if (unit.entryIds.length > 1 && (!holdsStack(d, unit) || bisectionStart(d, unit) !== null)) return false;
  const at = d.unitIndex().get(unit.id)!;
  return exclusion.excludes(unit, at, at + 1);
}

function readmit(s: Sink, unit: Unit, run: TestRun | undefined, why: Reason): void {
  if (run && isInFlight(run)) s.emit({ type: 'cancelRun', runId: run.id, reason: why.message });
  restartUnit(s, unit, why);
}

function reenterAtTail(s: Sink, unit: Unit, why: Reason): void {
  const d = s.d;
  const index = placementIndex(d, unitPriority(d, unit), unit, true);
  s.emit({ type: 'placeUnit', unit, index, seq: null });
  for (const e of d.unitEntries(unit)) {
    s.emit({
      type: 'transition',
      entryId: e.id,
      to: 'PENDING',
      reason: why,
      set: { testRunId: null, retriesUsed: 0, readyAt: d.nowIso, mergeIntent: null },
    });
  }
}

function fail(s: Sink, unit: Unit, run: TestRun): void {
  const d = s.d;
  const why = failureReason(d, run);
  for (const e of d.unitEntries(unit)) {
    s.emit({ type: 'transition', entryId: e.id, to: 'FAILED', reason: why, set: { mergeIntent: null } });
    s.emit({ type: 'unplaceEntry', entryId: e.id });
    dropResultsWith(s, e.id, reason('ahead_failed', `#${e.prNumber} ahead of it failed (${why.message}); retesting without it`));
  }
}

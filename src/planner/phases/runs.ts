import type { Unit } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { Draft, Sink } from '../draft.js';
import { isEvidence } from '../evidence.js';
import { awaitsBatch } from './batching.js';
import { keepsProbe } from '../bisect-batch.js';
import { isLanding, restartUnit } from '../invalidation.js';
import { createRun } from '../run-builder.js';
import { ContentWalk } from '../run-content.js';
import { AllGate } from '../all-gate.js';
import { graphForRuns } from '../queue-graph.js';
import { isLiveOrPassed } from '../run-status.js';
import { SuspectExclusion, isUnsplitBatch } from '../suspicion.js';
import { decidingRun, isSuspect, unitState } from '../units.js';
import { startHoldOf, unitPasses } from './hold.js';
import { pausedByStorm } from './storm.js';
import { guardRestartBudgets } from './restart-budget.js';

/**
 * Keeps every unit's deciding run equal to what it must test (rules 1, 4, 5, 8, 11): a unit whose run
 * no longer matches is restarted at its own position (its old result is kept only as flake evidence);
 * then runs are started for PENDING units in queue order while fewer than `concurrency` are in flight.
 */
export function maintainRuns(s: Sink): void {
  restartStaleUnits(s);
  cancelUnneededRuns(s);
  // Before any run starts: a PR just restarted past its bystander budget is held instead.
  guardRestartBudgets(s);
  if (s.d.state === 'running') startRuns(s);
}

function restartStaleUnits(s: Sink): void {
  const d = s.d;
  const byUnit = runsByUnit(d);
  const proofs = proofRunIds(d);
  const walk = new ContentWalk(d);
  for (const unit of d.units.slice()) {
    const state = unitState(d, unit);
    if ((state === 'TESTING' || state === 'TESTS_PASSED') && !isLanding(d, unit)) {
      const run = decidingRun(d, unit);
      if (run && !walk.matches(run, unit)) {
        const why = walk.whyStale(run, unit);
        const other = adoptable(d, walk, unit, byUnit.get(unit.id) ?? [], run);
        if (other) adopt(s, unit, other, why.message);
        else restartUnit(s, unit, why);
        if (!isEvidence(d, run) && !proofs.has(run.id) && isLiveOrPassed(run)) s.emit({ type: 'cancelRun', runId: run.id, reason: why.message });
      }
    }
    walk.push(unit);
  }
}

/** Runs in flight that decide nothing and are no flake evidence are cancelled. */
function cancelUnneededRuns(s: Sink): void {
  const d = s.d;
  const deciding = new Set<string>();
  for (const e of d.entries.values()) {
    if ((e.state === 'TESTING' || e.state === 'PENDING_FAILURE') && e.testRunId && d.unitOfEntry(e.id)) deciding.add(e.testRunId);
  }
  for (const run of [...d.runs.values()]) {
    if (!isInFlight(run) || deciding.has(run.id) || isEvidence(d, run) || keepsProbe(d, run)) continue;
    s.emit({ type: 'cancelRun', runId: run.id, reason: 'no longer needed' });
  }
}

function startRuns(s: Sink): void {
  const d = s.d;
  let inFlight = 0;
  for (const unit of d.units) {
    const run = decidingRun(d, unit);
    if (run && isInFlight(run) && !isSuspect(d, unit)) inFlight++;
  }
  const byUnit = runsByUnit(d);
  const walk = new ContentWalk(d);
  const gate = d.settings.mode === 'parallel' ? new AllGate(d, graphForRuns(d)) : null;
  const units = d.units.slice();
  const exclusion = new SuspectExclusion(d);
  // holdMode start: while held, only units that pass the hold start runs.
  const hold = startHoldOf(d);
  let batchAhead = -1;
  for (let k = 0; k < units.length; k++) {
    const unit = units[k]!;
    // Single mode: a run that would contain a failed batch still being bisected waits for its split.
    if (!gate && isSuspect(d, unit) && isUnsplitBatch(unit)) batchAhead = k;
    const waitsForSplit = batchAhead >= 0 && batchAhead < k && !exclusion.excludes(units[batchAhead]!, batchAhead, k);
    if (unitState(d, unit) === 'PENDING' && !awaitsBatch(d, unit) && !waitsForSplit) {
      const other = adoptable(d, walk, unit, byUnit.get(unit.id) ?? [], undefined);
      if (other) {
        adopt(s, unit, other, 'a run with exactly its content was already under way');
      } else if (inFlight < d.settings.concurrency && (!gate || gate.mayStart(k)) && (!hold || unitPasses(d, unit, hold)) && !pausedByStorm(d, unit)) {
        const run = createRun(s, unit, walk.contentFor(unit));
        for (const id of unit.entryIds) {
          s.emit({
            type: 'transition',
            entryId: id,
            to: 'TESTING',
            reason: reason('test_started', `testing with ${run.prs.length - unit.entryIds.length} pull request(s) ahead`),
            set: { testRunId: run.id },
          });
        }
        inFlight++;
      }
    }
    walk.push(unit);
  }
}

/** Another run of this unit, in flight or passed, that has exactly the content it needs now. */
function adoptable(d: Draft, walk: ContentWalk, unit: Unit, runs: TestRun[], except: TestRun | undefined): TestRun | undefined {
  for (const r of runs) {
    const run = d.run(r.id)!;
    if (run === except || run.id === except?.id || !isLiveOrPassed(run) || run.attempt > 0) continue;
    if (walk.matches(run, unit)) return run;
  }
  return undefined;
}

function adopt(s: Sink, unit: Unit, run: TestRun, why: string): void {
  const to = run.status === 'passed' ? 'TESTS_PASSED' : 'TESTING';
  for (const e of s.d.unitEntries(unit)) {
    if (e.state === to) s.emit({ type: 'patchEntry', entryId: e.id, set: { testRunId: run.id } });
    else s.emit({ type: 'transition', entryId: e.id, to, reason: reason(to === 'TESTING' ? 'test_started' : 'tests_passed', why), set: { testRunId: run.id } });
  }
}

/** Runs that merge decisions rest on: they stay passed. */
function proofRunIds(d: Draft): Set<string> {
  const ids = new Set<string>();
  for (const e of d.entries.values()) if (e.mergeIntent?.runId) ids.add(e.mergeIntent.runId);
  return ids;
}

function runsByUnit(d: Draft): Map<string, TestRun[]> {
  const m = new Map<string, TestRun[]>();
  for (const run of d.runs.values()) {
    if (!isLiveOrPassed(run)) continue;
    const list = m.get(run.unitId);
    if (list) list.push(run);
    else m.set(run.unitId, [run]);
  }
  return m;
}

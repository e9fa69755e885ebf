import { reason } from '../../domain/reasons.js';
import type { Unit } from '../../domain/queue.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { Sink } from '../draft.js';
import { describeFailure } from '../failure-reason.js';
import { isLanding, restartUnit } from '../invalidation.js';
import { SuspectExclusion } from '../suspicion.js';
import { decidingRun, entriesBefore, isProven, isRemoved, prLabel, unitState } from '../units.js';

/**
 * What the verdict of a unit's deciding run means for the unit (rules 2, 4, 5, 6): passed ->
 * TESTS_PASSED; failed -> a suspect (PENDING_FAILURE), unless a unit ahead in the run explains it;
 * dropped -> PENDING again.
 */
export function applyOutcomes(s: Sink): void {
  const d = s.d;
  const exclusion = new SuspectExclusion(d);
  for (const unit of d.units.slice()) {
    const state = unitState(d, unit);
    if ((state !== 'TESTING' && state !== 'TESTS_PASSED') || isLanding(d, unit)) continue;
    const run = decidingRun(d, unit);
    if (!run) {
      restartUnit(s, unit, reason('readmitted', 'its test run is gone; retesting'));
      continue;
    }
    if (isInFlight(run)) continue;
    if (run.status === 'passed') {
      if (state === 'TESTING') transitionUnit(s, unit, 'TESTS_PASSED', reason('tests_passed', 'tests passed'));
      continue;
    }
    if (run.status === 'cancelled') {
      const code = run.cancelReason === 'restarted_by_user' ? 'restarted_by_user' : 'readmitted';
      restartUnit(s, unit, reason(code, `its test run was cancelled (${run.cancelReason ?? 'no reason given'}); retesting`));
      continue;
    }
    if (state === 'TESTING') onFailure(s, unit, run, exclusion);
  }
}

function onFailure(s: Sink, unit: Unit, run: TestRun, exclusion: SuspectExclusion): void {
  const d = s.d;
  const deps = entriesBefore(run, unit);
  const conflictAhead = run.conflictEntryId !== null && deps.includes(run.conflictEntryId) ? run.conflictEntryId : null;
  // Rule 5: a unit ahead in the run that was removed, or is itself a suspect, explains the failure.
  // The unit is rebuilt without it — or, while the units behind that suspect still build on it, it
  // waits for the suspect to be resolved.
  const index = d.unitIndex();
  const suspectsAhead: string[] = [];
  for (const id of deps) {
    const e = d.entry(id);
    const ahead = isRemoved(e) ? undefined : d.unitOfEntry(id);
    const left = isRemoved(e) || (ahead && e!.state === 'PENDING_FAILURE' && exclusion.excludes(ahead, index.get(ahead.id)!, index.get(unit.id)!));
    if (left) {
      restartUnit(s, unit, reason('ahead_failed', `${prLabel(e, id)} ahead of it failed; retesting without it`));
      return;
    }
    if (e!.state === 'PENDING_FAILURE') suspectsAhead.push(prLabel(e, id));
  }
  const f0 = describeFailure(d, run);
  if (suspectsAhead.length > 0) {
    const why = reason('suspect', `${f0.text}; ${suspectsAhead.join(', ')} ahead of it failed first: waiting for that to be resolved`);
    transitionUnit(s, unit, 'PENDING_FAILURE', why);
    return;
  }
  const unresolved = deps.filter((id) => !isProven(d.entry(id)));
  const f = f0;
  if (unresolved.length > 0 || conflictAhead) {
    const labels = unresolved.map((id) => prLabel(d.entry(id), id)).join(', ');
    transitionUnit(
      s,
      unit,
      'PENDING_FAILURE',
      reason('suspect', `${f.text}; waiting for ${labels || 'the pull requests ahead'} before blaming it`),
    );
  } else {
    transitionUnit(s, unit, 'PENDING_FAILURE', reason(f.code, `${f.text}; checking whether it was a flake`));
  }
}

function transitionUnit(s: Sink, unit: Unit, to: 'TESTS_PASSED' | 'PENDING_FAILURE', why: ReturnType<typeof reason>): void {
  for (const e of s.d.unitEntries(unit)) s.emit({ type: 'transition', entryId: e.id, to, reason: why });
}

import { Draft } from './draft.js';
import { batchDueAt } from './phases/batching.js';
import { holdEndsAt, mergeHold } from '../domain/merge-hold.js';
import type { PlanInput } from './plan.js';
import { isInFlight } from '../domain/run.js';
import { resultsWaitEndsAt } from './test-results.js';
import { stormEndsAt } from '../domain/storm.js';
import { stormSettingsOf } from '../domain/settings.js';
import { waitEndsAt, waitingSince } from './all-admission.js';

/**
 * The earliest future time at which `plan()` would act without new facts: the timeout of a run in
 * flight, the time a partial batch becomes due, the end of an `ALL` PR's wait to be placed, or
 * the end of the wait for a failed run's test results, the end of a freeze or the opening of the merge
 * windows, or the end of a storm as its runs leave the window. null
 * when nothing is timed.
 */
export function nextWakeUp(input: PlanInput, now: Date): Date | null {
  const q = input.queue;
  const timeoutMs = q.settings.testingTimeoutMinutes * 60_000;
  let earliest = Infinity;
  for (const run of q.runs) {
    if (!isInFlight(run)) continue;
    const at = Date.parse(run.createdAt) + timeoutMs;
    if (at > now.getTime() && at < earliest) earliest = at;
  }
  for (const run of q.runs) {
    const at = resultsWaitEndsAt(q, run);
    if (at > now.getTime() && at < earliest) earliest = at;
  }
  for (const e of q.entries) {
    const since = waitingSince(e);
    const at = since && waitEndsAt(since).getTime();
    if (at && at > now.getTime() && at < earliest) earliest = at;
  }
  const hold = mergeHold(q, now);
  const ends = hold && holdEndsAt(q, hold, now)?.getTime();
  if (ends && ends > now.getTime() && ends < earliest) earliest = ends;
  const calm = q.storm && q.stormWatch ? stormEndsAt(q.stormWatch.ends, stormSettingsOf(q.settings)) : null;
  if (calm !== null && calm > now.getTime() && calm < earliest) earliest = calm;
  const due = batchDueAt(new Draft(q, now))?.getTime();
  if (due !== undefined && due > now.getTime() && due < earliest) earliest = due;
  return earliest === Infinity ? null : new Date(earliest);
}

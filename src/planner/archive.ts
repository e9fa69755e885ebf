import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import { isInFlight, type TestRun } from '../domain/run.js';
import { isActive } from '../domain/states.js';

/**
 * Ended entries and finished runs the planner no longer needs. A run is still needed while it is in
 * flight, its branch is not deleted, it decides an active entry (or was its merge proof), or it passed
 * with an active entry in it (a proof or flake evidence), or it failed with a suspect in it (the
 * evidence against it). An ended entry is kept while a kept run
 * holds it: run contents are compared entry by entry.
 */
export function archivable(queue: QueueDoc): { entries: Entry[]; runs: TestRun[] } {
  // Most commits have nothing to archive: no run that could go and no ended entry (a cheap scan first).
  if (queue.runs.every((r) => isInFlight(r) || !r.cleanedUp) && queue.entries.every((e) => isActive(e.state))) return { entries: [], runs: [] };
  const referenced = new Set<string>();
  const activeIds = new Set<string>();
  const suspectIds = new Set<string>();
  for (const e of queue.entries) {
    if (!isActive(e.state)) continue;
    activeIds.add(e.id);
    if (e.state === 'PENDING_FAILURE') suspectIds.add(e.id);
    if (e.testRunId) referenced.add(e.testRunId);
    if (e.mergeIntent?.runId) referenced.add(e.mergeIntent.runId);
  }
  const keptRuns: TestRun[] = [];
  const runs: TestRun[] = [];
  for (const run of queue.runs) {
    const keep =
      isInFlight(run) ||
      !run.cleanedUp ||
      referenced.has(run.id) ||
      (run.status === 'passed' && run.prs.some((p) => activeIds.has(p.entryId))) ||
      // Failed runs holding a suspect are the evidence against it.
      ((run.status === 'failed' || run.status === 'timed_out') && run.prs.some((p) => suspectIds.has(p.entryId)));
    (keep ? keptRuns : runs).push(run);
  }
  const heldByKeptRuns = new Set<string>();
  for (const run of keptRuns) for (const p of run.prs) heldByKeptRuns.add(p.entryId);
  const entries = queue.entries.filter((e) => !isActive(e.state) && !heldByKeptRuns.has(e.id));
  return { entries, runs };
}

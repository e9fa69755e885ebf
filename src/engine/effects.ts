import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import { isActive } from '../domain/states.js';

/**
 * The side effects a queue document asks for. They are derived from the persisted document alone, so
 * whatever a crash interrupted is found again and finished by the next reconcile.
 */

const ENDED_RUN_STATUSES = new Set(['passed', 'failed', 'timed_out', 'cancelled']);

/** Runs written as `creating`: their test branch must be built. */
export function runsToCreate(queue: QueueDoc): TestRun[] {
  return queue.runs.filter((r) => r.status === 'creating');
}

/** Ended runs whose test branch has not been deleted yet. */
export function runsToCleanUp(queue: QueueDoc): TestRun[] {
  return queue.runs.filter((r) => ENDED_RUN_STATUSES.has(r.status) && !r.cleanedUp);
}

/** Entries the planner decided to merge, in queue order (units order, then entries within a unit). */
export function mergesDue(queue: QueueDoc): Entry[] {
  if (!queue.entries.some(isMergeDue)) return [];
  const byId = new Map(queue.entries.map((e) => [e.id, e]));
  const due: Entry[] = [];
  const seen = new Set<string>();
  for (const unit of queue.units) {
    for (const id of unit.entryIds) {
      const entry = byId.get(id);
      seen.add(id);
      if (entry && isMergeDue(entry)) due.push(entry);
    }
  }
  // An intent outside every unit still has to be carried out (or found already done).
  const rest = queue.entries.filter((e) => !seen.has(e.id) && isMergeDue(e)).sort((a, b) => a.seq - b.seq);
  return [...due, ...rest];
}

function isMergeDue(entry: Entry): boolean {
  return entry.mergeIntent !== null && isActive(entry.state);
}

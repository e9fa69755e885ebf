import type { QueueDoc } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import { isActive } from '../../domain/states.js';
import { transition } from '../../domain/transition.js';

/**
 * Ends entries as FAILED (`github_error`) once the git host kept failing an operation they need
 * after every retry. Like a cancellation, it only removes them: the planner then cancels the runs
 * that still hold them and restarts the units behind without them.
 */
export function failForGitHostError(queue: QueueDoc, entryIds: readonly string[], message: string, now: Date): QueueDoc {
  const ids = new Set(entryIds.filter((id) => queue.entries.some((e) => e.id === id && isActive(e.state))));
  if (ids.size === 0) return queue;
  const why = reason('github_error', message);
  return {
    ...queue,
    entries: queue.entries.map((e) =>
      ids.has(e.id) ? { ...transition(e, 'FAILED', why, now), testRunId: null, mergeIntent: null } : e,
    ),
    units: queue.units
      .map((u) => (u.entryIds.some((id) => ids.has(id)) ? { ...u, entryIds: u.entryIds.filter((id) => !ids.has(id)) } : u))
      .filter((u) => u.entryIds.length > 0),
  };
}

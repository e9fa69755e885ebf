import type { QueueDoc } from '../domain/queue.js';
import type { TargetSet } from '../domain/targets.js';
import type { Action } from './actions.js';
import { Draft, RecordingSink } from './draft.js';
import { runPhases } from './phases/index.js';

export interface PlanInput {
  queue: QueueDoc;
  /** Impacted targets by entry id (for its current head SHA); only consulted in parallel mode. */
  targets: ReadonlyMap<string, TargetSet>;
}

/** What the queue should do now. Pure and deterministic; [] when there is nothing to do. */
export function plan(input: PlanInput, now: Date): Action[] {
  const sink = new RecordingSink(new Draft(input.queue, now, input.targets));
  runPhases(sink);
  return sink.actions;
}

/** The document after `actions` (from `plan` with the same `now`). `version` is left to the store. */
export function applyActions(queue: QueueDoc, actions: readonly Action[], now: Date): QueueDoc {
  if (actions.length === 0) return queue;
  const d = new Draft(queue, now);
  for (const a of actions) d.apply(a);
  return d.toDoc();
}

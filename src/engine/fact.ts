import type { QueueDoc } from '../domain/queue.js';

/** A fact about the world, recorded as a pure change of the queue document. */
export type Fact = (queue: QueueDoc) => QueueDoc;

export function applyFacts(queue: QueueDoc, facts: readonly Fact[]): QueueDoc {
  let next = queue;
  for (const fact of facts) next = fact(next);
  return next;
}

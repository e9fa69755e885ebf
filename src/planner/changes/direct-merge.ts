import type { QueueDoc } from '../../domain/queue.js';
import type { StatusCheck } from '../../domain/run.js';
import { isActive } from '../../domain/states.js';

export interface DirectMergeFacts {
  /** The target head the PR head was seen to contain, or null. */
  containsTargetSha: string | null;
  /** The PR head on which every required check of the PR itself succeeded, or null. */
  ownChecksPassedSha: string | null;
}

/**
 * What directMergeMode needs to know about a PR head (queue-semantics, single mode rule 10),
 * recorded on its entry while that head is still the entry's.
 */
export function recordDirectMergeFacts(queue: QueueDoc, entryId: string, prSha: string, facts: DirectMergeFacts): QueueDoc {
  const entry = queue.entries.find((e) => e.id === entryId);
  if (!entry || entry.prSha !== prSha || !isActive(entry.state)) return queue;
  const r = entry.readiness;
  if ((r.containsTargetSha ?? null) === facts.containsTargetSha && (r.ownChecksPassedSha ?? null) === facts.ownChecksPassedSha) return queue;
  return {
    ...queue,
    entries: queue.entries.map((e) => (e.id === entryId ? { ...e, readiness: { ...e.readiness, ...facts } } : e)),
  };
}

/** Every required check succeeded (and at least one is required: nothing checked proves nothing). */
export function requiredChecksPassed(required: readonly string[], checks: readonly StatusCheck[]): boolean {
  return required.length > 0 && required.every((context) => checks.some((c) => c.context === context && c.state === 'success'));
}

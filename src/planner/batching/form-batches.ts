import type { QueueSettings } from '../../domain/settings.js';

/** A PENDING entry that is not yet part of a tested unit. */
export interface BatchCandidate {
  id: string;
  noBatch: boolean;
  /** When it became ready: the start of its wait. */
  readyAt: Date;
}

export type BatchSettings = Pick<QueueSettings, 'batch' | 'batchingMinSize' | 'batchingMaxWaitTimeMinutes'>;

/** Why a batch starts now. */
export type BatchTrigger =
  /** It holds `batchingMinSize` entries (with batching off, or a min size of 1, every entry). */
  | 'full'
  /** Its oldest entry has waited `batchingMaxWaitTimeMinutes`. */
  | 'max_wait'
  /** A `noBatch` entry: always a batch of its own. */
  | 'no_batch'
  /** A partial group directly ahead of a `noBatch` entry: nothing can join it at the tail any more. */
  | 'before_no_batch';

export interface FormedBatch {
  /** Entry ids in queue order. */
  entryIds: string[];
  trigger: BatchTrigger;
}

export interface BatchFormation {
  /** The batches to start now, in queue order. Together they are always a prefix of the candidates. */
  start: FormedBatch[];
  /** The candidates left waiting (at most one partial group, always the tail), in queue order. */
  waiting: string[];
  /** When the waiting group becomes due (the engine's wake-up); null when nothing waits. */
  nextDueAt: Date | null;
}

const MINUTE_MS = 60_000;

/**
 * Decides which batches to start now (queue-semantics.md, "Batching" rule 1). Stateless: call it on
 * every reconcile with the current candidates, in queue order.
 *
 * Candidates are cut, from the front, into groups of `batchingMinSize` consecutive entries. A
 * `noBatch` entry is a batch of its own at its position and splits the order: the groups are formed
 * from the runs of entries between `noBatch` entries. A partial group directly ahead of a `noBatch`
 * entry starts at once rather than waiting: new entries join the tail of the queue, so it could not
 * grow, and holding it would either hold the `noBatch` entry and everything behind it, or let units
 * behind it start first (out of queue order). So the only group that can wait is the partial group at
 * the very tail, until its oldest entry has waited `batchingMaxWaitTimeMinutes`; the started batches
 * are therefore always a prefix of the queue order.
 *
 * With `batch` off or a min size of 1 every entry is a batch of its own and nothing waits.
 */
export function formBatches(
  candidates: readonly BatchCandidate[],
  settings: BatchSettings,
  now: Date,
): BatchFormation {
  const size = settings.batch ? Math.max(1, Math.floor(settings.batchingMinSize)) : 1;
  const maxWaitMs = Math.max(0, settings.batchingMaxWaitTimeMinutes) * MINUTE_MS;

  const start: FormedBatch[] = [];
  let group: BatchCandidate[] = [];
  for (const candidate of candidates) {
    if (candidate.noBatch) {
      if (group.length > 0) start.push(batchOf(group, 'before_no_batch'));
      group = [];
      start.push(batchOf([candidate], 'no_batch'));
      continue;
    }
    group.push(candidate);
    if (group.length === size) {
      start.push(batchOf(group, 'full'));
      group = [];
    }
  }

  if (group.length === 0) return { start, waiting: [], nextDueAt: null };
  const dueAtMs = oldestReadyAtMs(group) + maxWaitMs;
  // A readyAt that is not a valid time must not hold the group forever: it counts as due.
  if (!Number.isFinite(dueAtMs) || dueAtMs <= now.getTime()) {
    start.push(batchOf(group, 'max_wait'));
    return { start, waiting: [], nextDueAt: null };
  }
  return { start, waiting: group.map((c) => c.id), nextDueAt: new Date(dueAtMs) };
}

function batchOf(group: readonly BatchCandidate[], trigger: BatchTrigger): FormedBatch {
  return { entryIds: group.map((c) => c.id), trigger };
}

/** Queue order puts priority before readiness time, so the oldest entry need not be the first. */
function oldestReadyAtMs(group: readonly BatchCandidate[]): number {
  return Math.min(...group.map((c) => c.readyAt.getTime()));
}

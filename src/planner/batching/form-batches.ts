import type { QueueSettings } from '../../domain/settings.js';

/** A PENDING entry that is not yet part of a tested unit. */
export interface BatchCandidate {
  id: string;
  /**
   * A unit of several entries kept whole (a stack): its entry ids in order, `id` the first. It
   * counts as that many entries, and a batch may grow to `maxBatchSize` to take it in.
   */
  entryIds?: readonly string[];
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
  | 'before_no_batch'
  /** A unit kept whole that is larger than a batch may grow: a batch of its own. */
  | 'whole_unit'
  /** A partial group directly ahead of a unit kept whole that would make it larger than a batch may grow. */
  | 'before_whole_unit';

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
 * A unit kept whole (a stack, `entryIds`) counts as its entries: a group may grow past
 * `batchingMinSize` by half to take it in (docs/stacks.md); a group it would make larger starts
 * without it, and a unit larger than that is a batch of its own.
 *
 * With `batch` off or a min size of 1 every entry is a batch of its own and nothing waits.
 */
export function formBatches(
  candidates: readonly BatchCandidate[],
  settings: BatchSettings,
  now: Date,
): BatchFormation {
  const size = settings.batch ? Math.max(1, Math.floor(settings.batchingMinSize)) : 1;
  const maxSize = maxBatchSize(size);
  const maxWaitMs = Math.max(0, settings.batchingMaxWaitTimeMinutes) * MINUTE_MS;

  const start: FormedBatch[] = [];
  let group: BatchCandidate[] = [];
  let held = 0;
  const cut = (trigger: BatchTrigger): void => {
    if (group.length > 0) start.push(batchOf(group, trigger));
    group = [];
    held = 0;
  };
  for (const candidate of candidates) {
    const n = entriesOf(candidate).length;
    if (candidate.noBatch || n > maxSize) {
      cut(candidate.noBatch ? 'before_no_batch' : 'before_whole_unit');
      start.push(batchOf([candidate], candidate.noBatch ? 'no_batch' : 'whole_unit'));
      continue;
    }
    if (held + n > maxSize) cut('before_whole_unit');
    group.push(candidate);
    held += n;
    if (held >= size) cut('full');
  }

  if (group.length === 0) return { start, waiting: [], nextDueAt: null };
  const dueAtMs = oldestReadyAtMs(group) + maxWaitMs;
  // A readyAt that is not a valid time must not hold the group forever: it counts as due.
  if (!Number.isFinite(dueAtMs) || dueAtMs <= now.getTime()) {
    start.push(batchOf(group, 'max_wait'));
    return { start, waiting: [], nextDueAt: null };
  }
  return { start, waiting: group.flatMap((c) => [...entriesOf(c)]), nextDueAt: new Date(dueAtMs) };
}

/** How far a batch of size `size` may grow to keep a unit whole: by half (4 -> 6). */
export function maxBatchSize(size: number): number {
  return size + Math.floor(size / 2);
}

function entriesOf(c: BatchCandidate): readonly string[] {
  return c.entryIds ?? [c.id];
}

function batchOf(group: readonly BatchCandidate[], trigger: BatchTrigger): FormedBatch {
  return { entryIds: group.flatMap((c) => [...entriesOf(c)]), trigger };
}

/** Queue order puts priority before readiness time, so the oldest entry need not be the first. */
function oldestReadyAtMs(group: readonly BatchCandidate[]): number {
  return Math.min(...group.map((c) => c.readyAt.getTime()));
}

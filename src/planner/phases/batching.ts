import type { Entry } from '../../domain/entry.js';
import { derivedId } from '../../domain/ids.js';
import type { Unit } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import type { QueueSettings } from '../../domain/settings.js';
import { formBatches, type BatchCandidate, type BatchTrigger, type FormedBatch } from '../batching/form-batches.js';
import type { Draft, Sink } from '../draft.js';

/**
 * Batch formation (queue-semantics.md, "Batching" rule 1). An entry that becomes ready takes its
 * place in queue order as a unit of its own (a stack's members as one unit, kept whole); while
 * batching is on it waits there, untested, until `formBatches` puts it into a batch. A batch of
 * several units replaces them by one unit at the place of the first (they are consecutive, so queue
 * order does not change); every
 * member records the decision (`batched`), which is what tells a formed batch of one from an entry
 * still waiting.
 *
 * The waiting entries form consecutive segments of the queue. Only the segment at the very tail can
 * still grow (new entries join there); a partial group ahead of any other unit starts at once, so
 * that the units that start are always in queue order.
 */
export function formPendingBatches(s: Sink): void {
  const d = s.d;
  if (d.state !== 'running' || !batchingOn(d.settings)) return;
  for (const batch of batchesDue(d).start) placeBatch(s, batch);
}

/** When the partial batch at the tail becomes due without new facts (the engine's wake-up). */
export function batchDueAt(d: Draft): Date | null {
  if (d.state !== 'running' || !batchingOn(d.settings)) return null;
  return batchesDue(d).nextDueAt;
}

export function batchingOn(settings: QueueSettings): boolean {
  return settings.batch && settings.batchingMinSize > 1;
}

/**
 * A unit whose entries are ready, untested and not yet in a batch: a single entry, or a stack (kept
 * whole: a batch takes all of it or none, see formBatches).
 */
export function awaitsBatch(d: Draft, unit: Unit): boolean {
  if (!batchingOn(d.settings) || unit.entryIds.length === 0) return false;
  return unit.entryIds.every((id) => {
    const e = d.entry(id);
    return !!e && isUnbatched(e);
  });
}

function isUnbatched(e: Entry): boolean {
  if (e.state !== 'PENDING' || e.mergeIntent) return false;
  const code = e.history[e.history.length - 1]?.reason.code;
  return code === 'ready' || code === 'batch_split';
}

function batchesDue(d: Draft): { start: FormedBatch[]; nextDueAt: Date | null } {
  const start: FormedBatch[] = [];
  let segment: BatchCandidate[] = [];
  const flush = (atTail: boolean): Date | null => {
    if (segment.length === 0) return null;
    const formed = formBatches(segment, d.settings, d.now);
    start.push(...formed.start);
    segment = [];
    if (atTail) return formed.nextDueAt;
    if (formed.waiting.length > 0) start.push({ entryIds: formed.waiting, trigger: 'before_no_batch' });
    return null;
  };
  for (const unit of d.units) {
    if (awaitsBatch(d, unit)) {
      const entries = d.unitEntries(unit);
      const readyAt = Math.min(...entries.map((e) => Date.parse(e.readyAt ?? d.nowIso)));
      segment.push({
        id: entries[0]!.id,
        ...(entries.length > 1 ? { entryIds: unit.entryIds.slice() } : {}),
        noBatch: entries.some((e) => e.noBatch),
        readyAt: new Date(readyAt),
      });
    } else {
      flush(false);
    }
  }
  return { start, nextDueAt: flush(true) };
}

const TRIGGER_TEXT: Record<BatchTrigger, string> = {
  full: 'the batch is full',
  max_wait: 'its oldest entry waited batchingMaxWaitTimeMinutes',
  no_batch: 'noBatch: it is tested on its own',
  before_no_batch: 'nothing can join it: units behind it are already in the queue',
  whole_unit: 'a stack larger than a batch may grow: tested on its own',
  before_whole_unit: 'the stack behind it would make it larger than a batch may grow',
};

function placeBatch(s: Sink, batch: FormedBatch): void {
  const d = s.d;
  const ids = batch.entryIds;
  const own = d.unitOfEntry(ids[0]!);
  const alreadyOne = own !== undefined && own.entryIds.length === ids.length && own.entryIds.every((id, i) => id === ids[i]);
  if (ids.length > 1 && !alreadyOne) {
    const index = d.unitIndex().get(d.unitOfEntry(ids[0]!)!.id)!;
    for (const id of ids) s.emit({ type: 'unplaceEntry', entryId: id });
    const seq = d.nextSeq;
    s.emit({ type: 'placeUnit', unit: { id: derivedId(d.base.id, 'unit', seq), entryIds: ids.slice(), createdAt: d.nowIso }, index, seq });
  }
  const members = ids.map((id) => `#${d.entry(id)!.prNumber}`).join(', ');
  const text =
    ids.length === 1 ? `a batch of one (${TRIGGER_TEXT[batch.trigger]})` : alreadyOne ? `a batch of its own (${TRIGGER_TEXT[batch.trigger]})` : `batched as ${members} (${TRIGGER_TEXT[batch.trigger]})`;
  for (const id of ids) s.emit({ type: 'transition', entryId: id, to: 'PENDING', reason: reason('batched', text) });
}

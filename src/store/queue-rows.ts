import type { QueueDoc } from '../domain/queue.js';

/**
 * How an adapter finds what a commit changed without comparing contents: it keeps the queue document
 * it last read or committed (frozen, so nothing can change it in place) and compares the new one
 * with it by object identity. The engine and the services change a queue through pure functions that
 * copy what they change, so:
 *
 * - an entry or run that is the very same object as in the kept document is unchanged;
 * - any other object with an id (a copy, even with equal content) is written;
 * - an id of the kept document missing from the new one is deleted;
 * - the other fields of the document (its head) are written when any of them is not the same value.
 *
 * The kept document is only ever used to commit over the version it was stored at: a commit over
 * another version loads the stored rows first (see QueueSnapshots).
 */

/** Entries and runs are stored as rows; the rest of the document is its head. */
export type QueueHead = Omit<QueueDoc, 'entries' | 'runs' | 'version'>;

export interface Row {
  readonly id: string;
}

/** A row's position: rows are read back ordered by it, so a document's array order survives. */
interface Slot<T> {
  item: T;
  ord: number;
}

/** The rows of one array (entries or runs) as stored: each with its position. */
export class RowIndex<T extends Row> {
  private constructor(
    private readonly slots: Map<string, Slot<T>>,
    private items: readonly T[],
    private maxOrd: number,
  ) {}

  static empty<T extends Row>(): RowIndex<T> {
    return new RowIndex(new Map(), [], -1);
  }

  /** From stored rows, in position order. */
  static of<T extends Row>(rows: readonly { item: T; ord: number }[]): RowIndex<T> {
    const slots = new Map<string, Slot<T>>();
    for (const r of rows) slots.set(r.item.id, { item: r.item, ord: r.ord });
    return new RowIndex(slots, rows.map((r) => r.item), rows.length === 0 ? -1 : rows[rows.length - 1]!.ord);
  }

  get size(): number {
    return this.slots.size;
  }

  /**
   * What storing `next` over these rows writes, and turns this index into the index of `next`. The
   * caller must drop the index when the write then fails (it no longer describes what is stored).
   */
  change(next: readonly T[]): RowChanges<T> {
    const prev = this.items;
    const changes: RowChanges<T> = { upserts: [], moves: [], deletes: [] };
    // Fast path: the unchanged prefix (same objects at the same places) keeps its rows and order.
    let i = 0;
    while (i < next.length && i < prev.length && next[i] === prev[i]) i++;
    if (i === prev.length && i === next.length) return changes;

    let last = i === 0 ? -Infinity : this.slots.get(next[i - 1]!.id)!.ord;
    let inOrder = true;
    const placed: { item: T; ord: number; old: Slot<T> | undefined }[] = [];
    const seen = new Set<string>();
    let maxOrd = this.maxOrd;
    for (let j = i; j < next.length; j++) {
      const item = next[j]!;
      if (seen.has(item.id)) throw new Error(`duplicate id ${item.id} in a queue document`);
      seen.add(item.id);
      const old = this.slots.get(item.id);
      const ord = old ? old.ord : ++maxOrd;
      if (ord <= last) inOrder = false;
      last = ord;
      placed.push({ item, ord, old });
    }
    // The rows of the old array past the common prefix that the new one does not hold are gone.
    for (let j = i; j < prev.length; j++) {
      const id = prev[j]!.id;
      if (!seen.has(id)) {
        changes.deletes.push(id);
        this.slots.delete(id);
      }
    }
    if (!inOrder) {
      // Reordered (no caller does this today): number every row again.
      maxOrd = -1;
      for (let j = 0; j < next.length; j++) {
        const item = next[j]!;
        const old = this.slots.get(item.id);
        const ord = ++maxOrd;
        if (!old || old.item !== item) changes.upserts.push({ item, ord });
        else if (old.ord !== ord) changes.moves.push({ id: item.id, ord });
        this.slots.set(item.id, { item, ord });
      }
    } else {
      for (const p of placed) {
        if (p.old?.item === p.item) continue;
        changes.upserts.push({ item: p.item, ord: p.ord });
        this.slots.set(p.item.id, { item: p.item, ord: p.ord });
      }
    }
    this.items = next;
    this.maxOrd = maxOrd;
    return changes;
  }
}

export interface RowChanges<T> {
  /** New or changed rows, with their positions. */
  upserts: { item: T; ord: number }[];
  /** Unchanged rows at a new position. */
  moves: { id: string; ord: number }[];
  deletes: string[];
}

export function headOf(queue: QueueDoc): QueueHead {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { entries, runs, version, ...head } = queue;
  return head;
}

/** Whether any head field of `next` is not the same value as in `prev`. */
export function headChanged(prev: QueueDoc, next: QueueDoc): boolean {
  const a = prev as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  let count = 0;
  for (const key in b) {
    if (key === 'entries' || key === 'runs' || key === 'version') continue;
    if (b[key] === undefined) continue;
    count++;
    if (a[key] !== b[key]) return true;
  }
  for (const key in a) {
    if (key === 'entries' || key === 'runs' || key === 'version') continue;
    if (a[key] !== undefined) count--;
  }
  return count !== 0;
}

/** Freezes a value and everything in it; stops at what is frozen already, so it costs what is new. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}

/** A queue document as stored, with the positions of its rows: what the next commit is compared with. */
export interface QueueSnapshot {
  /** Frozen. */
  doc: QueueDoc;
  entries: RowIndex<QueueDoc['entries'][number]>;
  runs: RowIndex<QueueDoc['runs'][number]>;
}

/** The changes of a commit of `next` over `snapshot`, which becomes the snapshot of `next`. */
export interface QueueChanges {
  /** Null when no head field changed. */
  head: QueueHead | null;
  entries: RowChanges<QueueDoc['entries'][number]>;
  runs: RowChanges<QueueDoc['runs'][number]>;
}

/**
 * Compares `next` with the snapshot (see the rule at the top), freezes `next` and makes it the
 * snapshot's document. On a failed write the caller must drop the snapshot.
 */
export function changeSnapshot(snapshot: QueueSnapshot, next: QueueDoc): QueueChanges {
  const changes: QueueChanges = {
    head: headChanged(snapshot.doc, next) ? headOf(next) : null,
    entries: snapshot.entries.change(next.entries),
    runs: snapshot.runs.change(next.runs),
  };
  snapshot.doc = deepFreeze(next);
  return changes;
}

/** A snapshot of a queue read from its head and rows; freezes the document. */
export function snapshotOf(
  head: QueueHead,
  version: number,
  entries: readonly { item: QueueDoc['entries'][number]; ord: number }[],
  runs: readonly { item: QueueDoc['runs'][number]; ord: number }[],
): QueueSnapshot {
  const doc = deepFreeze({ ...head, version, entries: entries.map((r) => r.item), runs: runs.map((r) => r.item) } as QueueDoc);
  const snapshot: QueueSnapshot = { doc, entries: RowIndex.of(entries), runs: RowIndex.of(runs) };
  return snapshot;
}

import { knownSharedPrefix } from '../domain/appended-arrays.js';
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
 * - entries, runs and units are rows; an inserted row takes a position between its neighbours';
 * - the other fields of the document (its head) are written when any of them is not the same value.
 *
 * The kept document is only ever used to commit over the version it was stored at: a commit over
 * another version loads the stored rows first (see QueueSnapshots).
 */

/** Entries, runs and units are stored as rows; the rest of the document is its head. */
export type QueueHead = Omit<QueueDoc, 'entries' | 'runs' | 'units' | 'version'>;

/** The document fields that are stored as rows. */
const ROW_FIELDS = new Set(['entries', 'runs', 'units', 'version']);

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
    /** The stored array and the position of each of its items. */
    private items: readonly T[],
    private ords: number[],
    private maxOrd: number,
  ) {}

  static empty<T extends Row>(): RowIndex<T> {
    return new RowIndex(new Map(), [], [], -1);
  }

  /** From stored rows, in position order. */
  static of<T extends Row>(rows: readonly { item: T; ord: number }[]): RowIndex<T> {
    const slots = new Map<string, Slot<T>>();
    for (const r of rows) slots.set(r.item.id, { item: r.item, ord: r.ord });
    const maxOrd = rows.length === 0 ? -1 : rows[rows.length - 1]!.ord;
    return new RowIndex(slots, rows.map((r) => r.item), rows.map((r) => r.ord), maxOrd);
  }

  get size(): number {
    return this.slots.size;
  }

  /**
   * What storing `next` over these rows writes, and turns this index into the index of `next`. The
   * caller must drop the index when the write then fails (it no longer describes what is stored).
   */
  change(next: readonly T[]): RowChanges<T> {
    return this.changeInPlace(next) ?? this.changeAnyhow(next);
  }

  /**
   * The common cases at the cost of pointer comparisons: the same items in the same order, some
   * replaced by copies with the same id, new ones at the end. Null (nothing changed) otherwise.
   */
  private changeInPlace(next: readonly T[]): RowChanges<T> | null {
    const prev = this.items;
    if (next.length < prev.length) return null;
    const upserts: { item: T; ord: number }[] = [];
    for (let i = knownSharedPrefix(prev, next) ?? 0; i < prev.length; i++) {
      const item = next[i]!;
      if (item === prev[i]) continue;
      if (item.id !== prev[i]!.id) return null;
      upserts.push({ item, ord: this.ords[i]! });
    }
    // An id already stored, moved to the end: not this case.
    for (let i = prev.length; i < next.length; i++) if (this.slots.has(next[i]!.id)) return null;
    if (next.length - prev.length > 1 && new Set(next.slice(prev.length).map((x) => x.id)).size !== next.length - prev.length) {
      throw new Error('duplicate id in a queue document');
    }
    for (let i = prev.length; i < next.length; i++) {
      const ord = ++this.maxOrd;
      this.ords.push(ord);
      upserts.push({ item: next[i]!, ord });
    }
    for (const u of upserts) this.slots.set(u.item.id, u);
    this.items = next;
    return { upserts, moves: [], deletes: [] };
  }

  /**
   * Any change: rows removed, inserted anywhere or reordered. Costs a lookup per item. Inserted rows
   * take positions between their neighbours' (positions are numbers, not necessarily integers), so
   * only they are written; a reorder numbers every row again.
   */
  private changeAnyhow(next: readonly T[]): RowChanges<T> {
    const changes: RowChanges<T> = { upserts: [], moves: [], deletes: [] };
    const seen = new Set<string>();
    const olds: (Slot<T> | undefined)[] = [];
    let last = -Infinity;
    let inOrder = true;
    for (const item of next) {
      if (seen.has(item.id)) throw new Error(`duplicate id ${item.id} in a queue document`);
      seen.add(item.id);
      const old = this.slots.get(item.id);
      if (old) {
        if (old.ord <= last) inOrder = false;
        last = old.ord;
      }
      olds.push(old);
    }
    for (const item of this.items) {
      if (!seen.has(item.id)) {
        changes.deletes.push(item.id);
        this.slots.delete(item.id);
      }
    }
    const ords = (inOrder && placeBetween(olds, this.maxOrd)) || next.map((_, i) => i);
    let maxOrd = this.maxOrd;
    for (let i = 0; i < next.length; i++) {
      const item = next[i]!;
      const old = olds[i];
      const ord = ords[i]!;
      if (old?.item !== item) changes.upserts.push({ item, ord });
      else if (old.ord !== ord) changes.moves.push({ id: item.id, ord });
      this.slots.set(item.id, { item, ord });
      if (ord > maxOrd) maxOrd = ord;
    }
    this.items = next;
    this.ords = ords;
    this.maxOrd = inOrder ? maxOrd : next.length - 1;
    return changes;
  }
}

/**
 * Positions for rows kept in order (their old positions) and new ones (evenly between their kept
 * neighbours; after the last, past `maxOrd`). Null when two would be too close to tell apart.
 */
function placeBetween<T>(olds: readonly (Slot<T> | undefined)[], maxOrd: number): number[] | null {
  const ords: number[] = new Array<number>(olds.length);
  let i = 0;
  let lo = -1;
  let first = true;
  while (i < olds.length) {
    const old = olds[i];
    if (old) {
      ords[i] = old.ord;
      lo = old.ord;
      first = false;
      i++;
      continue;
    }
    let j = i;
    while (j < olds.length && !olds[j]) j++;
    const count = j - i;
    const hi = j < olds.length ? olds[j]!.ord : Math.max(maxOrd, lo) + count + 1;
    const from = first && j < olds.length ? hi - count - 1 : lo;
    const step = (hi - from) / (count + 1);
    if (!(step > 1e-6)) return null;
    for (let k = 0; k < count; k++) ords[i + k] = from + step * (k + 1);
    i = j;
  }
  return ords;
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
  const { entries, runs, units, version, ...head } = queue;
  return head;
}

/** Whether any head field of `next` is not the same value as in `prev`. */
export function headChanged(prev: QueueDoc, next: QueueDoc): boolean {
  const a = prev as unknown as Record<string, unknown>;
  const b = next as unknown as Record<string, unknown>;
  let count = 0;
  for (const key in b) {
    if (ROW_FIELDS.has(key)) continue;
    if (b[key] === undefined) continue;
    count++;
    if (a[key] !== b[key]) return true;
  }
  for (const key in a) {
    if (ROW_FIELDS.has(key)) continue;
    if (a[key] !== undefined) count--;
  }
  return count !== 0;
}

/** Freezes a value and everything in it; stops at what is frozen already, so it costs what is new. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) deepFreeze(value[i]);
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}

/** A queue document as stored, with the positions of its rows: what the next commit is compared with. */
export interface QueueSnapshot {
  /** Frozen. */
  doc: QueueDoc;
  entries: RowIndex<QueueDoc['entries'][number]>;
  runs: RowIndex<QueueDoc['runs'][number]>;
  units: RowIndex<QueueDoc['units'][number]>;
}

/** The changes of a commit of `next` over `snapshot`, which becomes the snapshot of `next`. */
export interface QueueChanges {
  /** Null when no head field changed. */
  head: QueueHead | null;
  entries: RowChanges<QueueDoc['entries'][number]>;
  runs: RowChanges<QueueDoc['runs'][number]>;
  units: RowChanges<QueueDoc['units'][number]>;
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
    units: snapshot.units.change(next.units),
  };
  // Freezing costs what changed: the items not written are the snapshot's, frozen already.
  for (const u of changes.entries.upserts) deepFreeze(u.item);
  for (const u of changes.runs.upserts) deepFreeze(u.item);
  for (const u of changes.units.upserts) deepFreeze(u.item);
  Object.freeze(next.entries);
  Object.freeze(next.runs);
  Object.freeze(next.units);
  snapshot.doc = deepFreeze(next);
  return changes;
}

/** A snapshot of a queue read from its head and rows; freezes the document. */
export function snapshotOf(head: QueueHead, version: number, rows: StoredRows): QueueSnapshot {
  const doc = deepFreeze({
    ...head,
    version,
    entries: rows.entries.map((r) => r.item),
    units: rows.units.map((r) => r.item),
    runs: rows.runs.map((r) => r.item),
  } as QueueDoc);
  return { doc, entries: RowIndex.of(rows.entries), runs: RowIndex.of(rows.runs), units: RowIndex.of(rows.units) };
}

type Positioned<T> = readonly { item: T; ord: number }[];

/** A queue's rows as read, each kind in position order. */
export interface StoredRows {
  entries: Positioned<QueueDoc['entries'][number]>;
  runs: Positioned<QueueDoc['runs'][number]>;
  units: Positioned<QueueDoc['units'][number]>;
}

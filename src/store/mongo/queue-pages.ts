import { BSON } from 'mongodb';
import type { QueueDoc } from '../../domain/queue.js';
import type { QueueChanges, RowChanges, StoredRows } from '../queue-rows.js';

/**
 * A queue's entries, runs and units live in pages: immutable documents of at most ROWS_PER_PAGE
 * rows, named by the queue document, so the queue document stays small whatever the depth. A
 * commit writes the pages holding what changed as new pages (the rows of those pages, repacked,
 * plus the new rows) and points the queue document at them in its compare-and-set; a reader that
 * finds a page gone (replaced by a commit since it read the queue document) reads again.
 */
export const ROWS_PER_PAGE = 64;
/** A page over this (a row with a very long history) is split; a single row over it is refused. */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024;

type Kind = 'e' | 'r' | 'u';
type Item = QueueDoc['entries'][number] | QueueDoc['runs'][number] | QueueDoc['units'][number];

/** One entry (`e`), run (`r`) or unit (`u`) at its position `o` in the document's array. */
export interface PageRow {
  k: Kind;
  o: number;
  d: Item;
}

export interface QueuePage {
  _id: string;
  queueId: string;
  writtenAt: string;
  rows: PageRow[];
}

/** What a commit writes: new pages, the pages they replace, and the queue's page list after it. */
export interface PageWrite {
  pages: QueuePage[];
  replaced: string[];
  pageIds: string[];
}

const rowKey = (k: Kind, id: string) => `${k}\u0000${id}`;

/** Which page holds each row of a stored queue. */
export class PageMap {
  private constructor(
    private readonly rowsOf: Map<string, readonly PageRow[]>,
    private readonly pageOf: Map<string, string>,
  ) {}

  static of(pages: readonly Pick<QueuePage, '_id' | 'rows'>[]): PageMap {
    const pageOf = new Map<string, string>();
    for (const page of pages) for (const row of page.rows) pageOf.set(rowKey(row.k, row.d.id), page._id);
    return new PageMap(new Map(pages.map((p) => [p._id, p.rows])), pageOf);
  }

  /** The queue's rows, each kind in position order. */
  rows(): StoredRows {
    const all = [...this.rowsOf.values()].flat().sort((a, b) => a.o - b.o);
    const of = <T extends Item>(k: Kind) => all.filter((r) => r.k === k).map((r) => ({ item: r.d as T, ord: r.o }));
    return { entries: of('e'), runs: of('r'), units: of('u') };
  }

  /** The pages a commit with these row changes writes; this map becomes the map after it. */
  change(changes: Pick<QueueChanges, 'entries' | 'runs' | 'units'>, queueId: string, newId: () => string): PageWrite {
    const replaced = new Set<string>();
    const updated = new Map<string, PageRow | null>();
    const fresh: PageRow[] = [];
    const note = (key: string, row: PageRow | null) => {
      const page = this.pageOf.get(key);
      if (page === undefined) {
        if (row) fresh.push(row);
        return;
      }
      replaced.add(page);
      updated.set(key, row);
    };
    for (const [k, c] of [['e', changes.entries], ['r', changes.runs], ['u', changes.units]] as [Kind, RowChanges<Item>][]) {
      for (const { item, ord } of c.upserts) note(rowKey(k, item.id), { k, o: ord, d: item });
      for (const id of c.deletes) note(rowKey(k, id), null);
      for (const { id, ord } of c.moves) {
        const key = rowKey(k, id);
        const row = this.row(key);
        if (row) note(key, { ...row, o: ord });
      }
    }
    const kept: PageRow[] = [];
    for (const page of replaced) {
      for (const row of this.rowsOf.get(page)!) {
        const key = rowKey(row.k, row.d.id);
        const next = updated.has(key) ? updated.get(key)! : row;
        if (next) kept.push(next);
      }
      for (const row of this.rowsOf.get(page)!) this.pageOf.delete(rowKey(row.k, row.d.id));
      this.rowsOf.delete(page);
    }
    const writtenAt = new Date().toISOString();
    const pages = packRows([...kept, ...fresh]).map((rows) => ({ _id: newId(), queueId, writtenAt, rows }));
    for (const page of pages) {
      this.rowsOf.set(page._id, page.rows);
      for (const row of page.rows) this.pageOf.set(rowKey(row.k, row.d.id), page._id);
    }
    return { pages, replaced: [...replaced], pageIds: [...this.rowsOf.keys()] };
  }

  private row(key: string): PageRow | undefined {
    const page = this.pageOf.get(key);
    return page === undefined ? undefined : this.rowsOf.get(page)!.find((r) => rowKey(r.k, r.d.id) === key);
  }
}

/** Every row of a queue, at its array position, for writing it whole. */
export function allRows(queue: Pick<QueueDoc, 'entries' | 'runs' | 'units'>): Pick<QueueChanges, 'entries' | 'runs' | 'units'> {
  const whole = <T>(items: readonly T[]): RowChanges<T> => ({ upserts: items.map((item, ord) => ({ item, ord })), moves: [], deletes: [] });
  return { entries: whole(queue.entries), runs: whole(queue.runs), units: whole(queue.units) };
}

/** Rows in position order, ROWS_PER_PAGE a page, a page split while over MAX_PAGE_BYTES. */
function packRows(rows: PageRow[]): PageRow[][] {
  rows.sort((a, b) => a.o - b.o);
  const pages: PageRow[][] = [];
  const add = (chunk: PageRow[]): void => {
    if (BSON.calculateObjectSize({ rows: chunk }) <= MAX_PAGE_BYTES) {
      pages.push(chunk);
      return;
    }
    if (chunk.length === 1) {
      const row = chunk[0]!;
      throw new Error(`a queue row (${row.k === 'e' ? 'entry' : row.k === 'r' ? 'run' : 'unit'} ${row.d.id}) is over ${MAX_PAGE_BYTES / 2 ** 20} MiB of BSON: MongoDB cannot store it`);
    }
    const half = Math.ceil(chunk.length / 2);
    add(chunk.slice(0, half));
    add(chunk.slice(half));
  };
  for (let i = 0; i < rows.length; i += ROWS_PER_PAGE) add(rows.slice(i, i + ROWS_PER_PAGE));
  return pages;
}

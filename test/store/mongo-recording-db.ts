import type { Db } from 'mongodb';

/** A query the adapter sent: its collection, filter and sort. */
export interface RecordedQuery {
  collection: string;
  op: string;
  filter: Record<string, unknown>;
  sort: Record<string, 1 | -1>;
  /** The server may sort it on disk (a sort no index serves). */
  allowDiskUse?: boolean;
}

/**
 * A stand-in for the driver's `Db` that runs nothing: it records every filter and sort the adapter
 * sends and every index it creates, and answers reads with documents the test queued for them
 * (each `find` on a collection takes the next queued list; `findOne` answers `one[collection]`).
 */
export class RecordingDb {
  readonly queries: RecordedQuery[] = [];
  /** Each document inserted and each update sent, as the driver would serialize it. */
  readonly written: { collection: string; op: string; doc: object }[] = [];
  readonly indexes = new Map<string, Record<string, 1 | -1>[]>();
  private readonly queued = new Map<string, Record<string, unknown>[][]>();
  readonly one = new Map<string, Record<string, unknown>>();

  /** The next `find` on `collection` answers these documents. */
  queue(collection: string, docs: Record<string, unknown>[]): void {
    this.queued.set(collection, [...(this.queued.get(collection) ?? []), docs]);
  }

  get db(): Db {
    return { collection: (name: string) => this.collection(name), command: async () => ({ ok: 1 }) } as unknown as Db;
  }

  private collection(name: string): unknown {
    const record = (op: string, filter: unknown = {}, sort: unknown = {}, allowDiskUse = false) =>
      this.queries.push({ collection: name, op, filter: filter as Record<string, unknown>, sort: sort as Record<string, 1 | -1>, ...(allowDiskUse ? { allowDiskUse } : {}) });
    const write = (op: string, doc: unknown) => this.written.push({ collection: name, op, doc: doc as object });
    const next = () => this.queued.get(name)?.shift() ?? [];
    const cursor = (filter: unknown, options: { sort?: unknown; allowDiskUse?: boolean } = {}) => {
      let sort = options.sort;
      let disk = options.allowDiskUse === true;
      let recorded = false;
      const docs = () => {
        if (!recorded) record('find', filter, sort, disk);
        recorded = true;
        return next();
      };
      const c = {
        sort: (s: unknown) => ((sort = s), c),
        allowDiskUse: () => ((disk = true), c),
        skip: () => c,
        limit: () => c,
        toArray: async () => docs(),
        close: async () => {},
        async *[Symbol.asyncIterator]() {
          yield* docs();
        },
      };
      return c;
    };
    const ack = { acknowledged: true, matchedCount: 1, modifiedCount: 1, deletedCount: 1, upsertedCount: 0, insertedCount: 1 };
    return {
      createIndexes: async (specs: { key: Record<string, 1 | -1> }[]) => {
        this.indexes.set(name, [...(this.indexes.get(name) ?? [{ _id: 1 }]), ...specs.map((s) => s.key)]);
        return [];
      },
      find: cursor,
      findOne: async (filter: unknown, options: { sort?: unknown } = {}) => (record('findOne', filter, options.sort), this.one.get(name) ?? null),
      countDocuments: async (filter: unknown) => (record('countDocuments', filter), 0),
      distinct: async (_field: string, filter: unknown) => (record('distinct', filter), []),
      aggregate: (stages: Record<string, unknown>[]) => ({
        toArray: async () => (record('aggregate', stages[0]?.$match), []),
      }),
      insertOne: async (doc: unknown) => (write('insertOne', doc), ack),
      insertMany: async (docs: unknown[]) => (docs.forEach((d) => write('insertMany', d)), ack),
      updateOne: async (filter: unknown, update: unknown) => (record('updateOne', filter), write('updateOne', update), ack),
      updateMany: async (filter: unknown) => (record('updateMany', filter), ack),
      replaceOne: async (filter: unknown) => (record('replaceOne', filter), ack),
      deleteOne: async (filter: unknown) => (record('deleteOne', filter), ack),
      deleteMany: async (filter: unknown) => (record('deleteMany', filter), { ...ack, deletedCount: 0 }),
      findOneAndUpdate: async (filter: unknown) => (record('findOneAndUpdate', filter), { _id: 'lease', holder: 'h', expiresAt: 0, value: 1 }),
      findOneAndReplace: async (filter: unknown) => (record('findOneAndReplace', filter), null),
      bulkWrite: async (ops: Record<string, { filter: unknown }>[]) => {
        for (const op of ops) {
          for (const [kind, body] of Object.entries(op)) {
            record(kind, body.filter);
            write(kind, body);
          }
        }
        return ack;
      },
    };
  }
}

import { MongoServerError, type AnyBulkWriteOperation, type Collection, type Document, type Filter, type WithoutId } from 'mongodb';
import { ConflictError } from '../errors.js';

/** Reads and writes of MongoDB documents that are the domain objects themselves (without `_id`). */

export async function findOne<T extends Document>(collection: Collection<T>, filter: Filter<T>): Promise<T | null> {
  return (await collection.findOne(filter, { projection: { _id: 0 } })) as T | null;
}

/**
 * Sorted by the server, spilling to disk when no index serves the sort (history over 30 days can be
 * large). `_commit` is the archive's tag of an unconfirmed commit (archive-writes.ts), never read.
 */
export async function findMany<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  sort: Record<string, 1 | -1>,
  limit = 0,
): Promise<T[]> {
  return (await collection.find(filter, { projection: { _id: 0, _commit: 0 }, sort, limit, allowDiskUse: true }).toArray()) as T[];
}

/** Upserts by `id`: writing the same archive twice leaves one copy. */
export async function upsertAll<T extends { id: string }>(collection: Collection<T>, docs: T[]): Promise<void> {
  if (docs.length === 0) return;
  const ops: AnyBulkWriteOperation<T>[] = docs.map((doc) => ({
    replaceOne: { filter: { id: doc.id } as Filter<T>, replacement: { ...doc } as WithoutId<T>, upsert: true },
  }));
  await retryOnDuplicate(() => collection.bulkWrite(ops, { ordered: false }));
}

export function isDuplicateKey(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 11000;
}

export async function conflictOnDuplicate<R>(message: string, write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (isDuplicateKey(err)) throw new ConflictError(message);
    throw err;
  }
}

/**
 * Two concurrent upserts of a new key can both try to insert; the loser fails with a duplicate key
 * error, and repeating it then finds and updates the winner's document.
 */
export async function retryOnDuplicate<R>(write: () => Promise<R>): Promise<R> {
  try {
    return await write();
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    return write();
  }
}

/** Documents deleted per round trip by housekeeping, so no reply or statement grows with history. */
const DELETE_BATCH = 1000;

/** Deletes what `filter` matches, DELETE_BATCH documents at a time; returns how many. */
export async function deleteInBatches<T extends Document>(collection: Collection<T>, filter: Filter<T>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const ids = (await collection.find(filter, { projection: { _id: 1 }, limit: DELETE_BATCH }).toArray()).map((d) => d._id);
    if (ids.length === 0) return deleted;
    deleted += (await collection.deleteMany({ _id: { $in: ids } } as Filter<T>)).deletedCount;
  }
}

/**
 * The filter of a compare-and-set on fields (fields-hold.ts): each field equal to the value given
 * (null matches a missing field). An object or array matches only with its fields in the stored
 * order, so `expected` must hold the values as read, not rebuilt.
 */
export function fieldsFilter(expected: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, v ?? null]));
}

import type { AnyBulkWriteOperation, Collection, Filter } from 'mongodb';
import { retryOnDuplicate, upsertAll } from './collection-ops.js';

/**
 * A queue commit's archive (ended entries, finished runs) around its compare-and-set, without a
 * transaction: written before it, tagged with the commit's id (`_commit`) and never over a row that
 * exists; after a lost compare-and-set the commit deletes the rows tagged with its id, so nothing of it
 * stays; after a won one it writes them again untagged (its own content, and a row another commit's
 * rollback deleted in between comes back). A commit that stops after its compare-and-set leaves its
 * rows tagged and visible, as they should be; findMany never reads the tag.
 */
export const COMMIT_TAG = '_commit';

type Archived = { id: string };

export async function stageArchive<T extends Archived>(collection: Collection<T>, docs: readonly T[] | undefined, commitId: string): Promise<void> {
  if (!docs?.length) return;
  const ops = docs.map((doc) => ({
    updateOne: { filter: { id: doc.id }, update: { $setOnInsert: { ...doc, [COMMIT_TAG]: commitId } }, upsert: true },
  })) as unknown as AnyBulkWriteOperation<T>[];
  await retryOnDuplicate(() => collection.bulkWrite(ops, { ordered: false }));
}

export async function confirmArchive<T extends Archived>(collection: Collection<T>, docs: readonly T[] | undefined): Promise<void> {
  if (docs?.length) await upsertAll(collection, [...docs]);
}

export async function dropArchive<T extends Archived>(collection: Collection<T>, docs: readonly T[] | undefined, commitId: string): Promise<void> {
  if (docs?.length) await collection.deleteMany({ [COMMIT_TAG]: commitId } as unknown as Filter<T>);
}

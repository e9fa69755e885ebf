import type { Collection } from 'mongodb';
import type { TestUpload } from '../../domain/flaky.js';
import { isDuplicateKey } from './collection-ops.js';

/**
 * A flaky-test upload is claimed first, by inserting its document marked `pending` (unique per
 * repository and uploadId), so of two identical uploads at once only one writes anything; the mark
 * is removed once everything is written. A write that fails gives its claim back, so the client's
 * retry is not refused; a claim left by a process that stopped lapses after CLAIM_LAPSES_MS: it then
 * has no answer, and the next identical upload takes it over and writes it all (each write before
 * the mark's removal is idempotent, so nothing is written twice).
 */
export const CLAIM_LAPSES_MS = 10 * 60_000;

export type StoredUpload = TestUpload & { pending?: boolean; claimedAt?: string };

/** True when this caller holds the claim and must write the upload. */
export async function claimUpload(uploads: Collection<StoredUpload>, upload: TestUpload): Promise<boolean> {
  const claimedAt = new Date().toISOString();
  try {
    await uploads.insertOne({ ...upload, pending: true, claimedAt });
    return true;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const { repoKey, uploadId } = upload;
  const { matchedCount } = await uploads.replaceOne({ repoKey, uploadId, pending: true, claimedAt: { $lt: lapsedBefore() } }, { ...upload, pending: true, claimedAt });
  return matchedCount === 1;
}

export async function completeUpload(uploads: Collection<StoredUpload>, upload: TestUpload): Promise<void> {
  await uploads.updateOne({ repoKey: upload.repoKey, uploadId: upload.uploadId }, { $unset: { pending: '', claimedAt: '' } });
}

export async function giveClaimBack(uploads: Collection<StoredUpload>, upload: TestUpload): Promise<void> {
  await uploads.deleteOne({ repoKey: upload.repoKey, uploadId: upload.uploadId, pending: true });
}

/** The stored upload and its answer; null for none, or for a claim that lapsed. */
export async function readUpload(uploads: Collection<StoredUpload>, repoKey: string, uploadId: string): Promise<TestUpload | null> {
  const doc = await uploads.findOne({ repoKey, uploadId }, { projection: { _id: 0 } });
  if (!doc) return null;
  const { pending, claimedAt, ...upload } = doc;
  return pending && (claimedAt ?? '') < lapsedBefore() ? null : upload;
}

function lapsedBefore(): string {
  return new Date(Date.now() - CLAIM_LAPSES_MS).toISOString();
}

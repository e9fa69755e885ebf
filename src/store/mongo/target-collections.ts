import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { targetNameBytes } from '../../domain/retention.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import type { PutTargetsOptions, TargetStore, TargetsHead } from '../store.js';
import { findMany, findOne, retryOnDuplicate } from './collection-ops.js';
import { chunkNames } from './target-chunks.js';

/** The key of an impacted-target list: one PR head. */
interface TargetsKey {
  repoKey: string;
  prNumber: number;
  sha: string;
}

/** Written after its chunks, so a reader that finds a header finds the whole list. */
interface TargetsHeader extends TargetsKey {
  all: boolean;
  count: number;
  /** When the list was last put or needed by a queued entry (absent on lists stored before retention). */
  usedAt?: string;
  /** UTF-8 bytes of its names. */
  bytes?: number;
  /** Tells this list's chunks from those of a list it replaced or that replaces it. */
  generation: string;
  chunks: number;
}

interface TargetsChunk extends TargetsKey {
  generation: string;
  index: number;
  names: string[];
}

/** Impacted-target lists: a header per PR head and its names in chunks (target-chunks.ts). */
export class MongoTargetCollections implements TargetStore {
  private readonly headers: Collection<TargetsHeader>;
  private readonly chunks: Collection<TargetsChunk>;

  constructor(db: Db) {
    this.headers = db.collection('impacted_targets');
    this.chunks = db.collection('impacted_target_chunks');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.headers.createIndexes([{ key: { repoKey: 1, prNumber: 1, sha: 1 }, unique: true }, { key: { usedAt: 1 } }, { key: { repoKey: 1, usedAt: 1, prNumber: 1, sha: 1 } }]),
      this.chunks.createIndexes([{ key: { repoKey: 1, prNumber: 1, sha: 1, generation: 1, index: 1 }, unique: true }]),
    ]);
  }

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const key: TargetsKey = { repoKey, prNumber, sha };
    const generation = randomUUID();
    const chunks = targets.all ? [] : chunkNames(targets.targets);
    if (chunks.length > 0) {
      await this.chunks.insertMany(
        chunks.map((names, index) => ({ ...key, generation, index, names })),
        { ordered: false },
      );
    }
    const header: TargetsHeader = {
      ...key,
      all: targets.all,
      count: targets.all ? 0 : targets.targets.length,
      generation,
      chunks: chunks.length,
      usedAt: options.at ?? new Date().toISOString(),
      bytes: targets.all ? 0 : targetNameBytes(targets.targets),
    };
    const replaced = await retryOnDuplicate(() =>
      this.headers.findOneAndReplace(key, header, { upsert: true, returnDocument: 'before' }),
    );
    // Each writer removes the chunks of the list it replaced, so concurrent writers never delete
    // the chunks of the list that is current.
    if (replaced) await this.chunks.deleteMany({ ...key, generation: replaced.generation });
    if (options.maxBytesPerRepo !== undefined) await this.capTargets(key, options.maxBytesPerRepo);
  }

  /** Drops the repository's least recently used lists, other than `kept`, until it holds at most `maxBytes`. */
  private async capTargets(kept: TargetsKey, maxBytes: number): Promise<void> {
    const lists = await this.headers
      .find({ repoKey: kept.repoKey }, { projection: { _id: 0, prNumber: 1, sha: 1, bytes: 1, generation: 1 } })
      .sort({ usedAt: 1, prNumber: 1, sha: 1 })
      .toArray();
    let total = lists.reduce((sum, l) => sum + (l.bytes ?? 0), 0);
    for (const list of lists) {
      if (total <= maxBytes) break;
      if (list.prNumber === kept.prNumber && list.sha === kept.sha) continue;
      await this.deleteTargets({ repoKey: kept.repoKey, prNumber: list.prNumber, sha: list.sha }, list.generation);
      total -= list.bytes ?? 0;
    }
  }

  /** Header first: a reader never finds a header without its chunks. */
  private async deleteTargets(key: TargetsKey, generation: string): Promise<boolean> {
    const deleted = await this.headers.deleteOne({ ...key, generation });
    await this.chunks.deleteMany({ ...key, generation });
    return deleted.deletedCount === 1;
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    if (heads.length === 0) return;
    await this.headers.updateMany(
      { repoKey, $or: heads.map((h) => ({ prNumber: h.prNumber, sha: h.sha })) },
      { $max: { usedAt: at } },
    );
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    const unused = this.headers.find(
      { $or: [{ usedAt: { $lt: unusedSince } }, { usedAt: { $exists: false } }] },
      { projection: { _id: 0, repoKey: 1, prNumber: 1, sha: 1, generation: 1 } },
    );
    let pruned = 0;
    // A cursor, read in batches: the unused lists are never all in memory at once.
    for await (const h of unused) if (await this.deleteTargets({ repoKey: h.repoKey, prNumber: h.prNumber, sha: h.sha }, h.generation)) pruned++;
    return pruned;
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    const key: TargetsKey = { repoKey, prNumber, sha };
    // A list replaced between reading its header and its chunks is gone: read the new one.
    for (let attempt = 0; attempt < 5; attempt++) {
      const header = await findOne(this.headers, key);
      if (!header) return null;
      if (header.all) return { all: true };
      const chunks = await findMany(this.chunks, { ...key, generation: header.generation }, { index: 1 });
      if (chunks.length === header.chunks) return { all: false, targets: chunks.flatMap((c) => c.names) };
    }
    throw new Error(`impacted targets of ${repoKey}#${prNumber} at ${sha} kept changing while being read`);
  }
}

import { targetNameBytes } from '../../domain/retention.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { deepFreeze } from '../queue-rows.js';
import type { PutTargetsOptions, TargetStore, TargetsHead } from '../store.js';

interface StoredTargets {
  repoKey: string;
  prNumber: number;
  sha: string;
  list: ImpactedTargets;
  usedAt: string;
  bytes: number;
}

/** Impacted-target lists in memory, kept frozen and handed out shared (as queues are). */
export class MemoryTargets implements TargetStore {
  private readonly targets = new Map<string, StoredTargets>();

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const key = `${repoKey}#${prNumber}#${sha}`;
    const bytes = targets.all ? 0 : targetNameBytes(targets.targets);
    this.targets.set(key, { repoKey, prNumber, sha, list: deepFreeze(targets.all ? { all: true } : { all: false, targets: targets.targets.slice() }), usedAt: options.at ?? new Date().toISOString(), bytes });
    if (options.maxBytesPerRepo === undefined) return;
    const ofRepo = [...this.targets.entries()].filter(([, t]) => t.repoKey === repoKey).sort(([, a], [, b]) => (a.usedAt < b.usedAt ? -1 : a.usedAt > b.usedAt ? 1 : 0));
    let total = ofRepo.reduce((sum, [, t]) => sum + t.bytes, 0);
    for (const [k, t] of ofRepo) {
      if (total <= options.maxBytesPerRepo) break;
      if (k === key) continue;
      this.targets.delete(k);
      total -= t.bytes;
    }
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    return this.targets.get(`${repoKey}#${prNumber}#${sha}`)?.list ?? null;
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    for (const head of heads) {
      const t = this.targets.get(`${repoKey}#${head.prNumber}#${head.sha}`);
      if (t && t.usedAt < at) t.usedAt = at;
    }
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    let pruned = 0;
    for (const [k, t] of this.targets) if (t.usedAt < unusedSince && this.targets.delete(k)) pruned++;
    return pruned;
  }
}

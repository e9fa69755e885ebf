import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import { isActive } from '../domain/states.js';
import type { TargetSet } from '../domain/targets.js';
import { TargetInterner } from '../planner/parallel/interner.js';
import type { TargetStore } from '../store/store.js';

export function needsTargets(queue: QueueDoc): boolean {
  return queue.settings.mode === 'parallel' || queue.switching?.toMode === 'parallel';
}

/**
 * The impacted targets of one queue's active entries, as interned target sets. A list (possibly
 * hundreds of thousands of names) is read and interned once per PR head, then served from memory
 * while that head is in the queue.
 */
export class QueueTargets {
  private readonly interner = new TargetInterner();
  private readonly cache = new Map<string, TargetSet>();
  /** Heads looked up and not found; asked again once the queue says they were set. */
  private readonly missing = new Set<string>();

  constructor(private readonly targets: Pick<TargetStore, 'getImpactedTargets'>) {}

  async load(queue: QueueDoc): Promise<Map<string, TargetSet>> {
    const byEntry = new Map<string, TargetSet>();
    const live = new Set<string>();
    for (const entry of queue.entries) {
      if (!isActive(entry.state)) continue;
      const key = headKey(entry);
      live.add(key);
      const set = await this.lookup(queue.repoKey, entry);
      if (set !== undefined) byEntry.set(entry.id, set);
    }
    for (const key of this.cache.keys()) if (!live.has(key)) this.cache.delete(key);
    for (const key of this.missing) if (!live.has(key)) this.missing.delete(key);
    return byEntry;
  }

  /** Whether targets are stored for the entry's head (cached lookups). */
  async has(repoKey: string, entry: Entry): Promise<boolean> {
    return (await this.lookup(repoKey, entry)) !== undefined;
  }

  /** Drops what is cached for a head whose list was replaced. */
  forget(prNumber: number, sha: string): void {
    this.cache.delete(`${prNumber}@${sha}`);
    this.missing.delete(`${prNumber}@${sha}`);
  }

  private async lookup(repoKey: string, entry: Entry): Promise<TargetSet | undefined> {
    const key = headKey(entry);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    if (this.missing.has(key) && !entry.readiness.hasImpactedTargets) return undefined;
    const stored = await this.targets.getImpactedTargets(repoKey, entry.prNumber, entry.prSha);
    if (!stored) {
      this.missing.add(key);
      return undefined;
    }
    this.missing.delete(key);
    const set = this.interner.toTargetSet(stored);
    this.cache.set(key, set);
    return set;
  }
}

function headKey(entry: Entry): string {
  return `${entry.prNumber}@${entry.prSha}`;
}

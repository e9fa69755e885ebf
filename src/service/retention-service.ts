import { isActive } from '../domain/states.js';
import { daysBefore, TARGETS_UNUSED_DAYS } from '../domain/retention.js';
import type { QueueStore, TargetStore } from '../store/store.js';

export interface RetentionReport {
  targetLists: number;
  entries: number;
  runs: number;
}

/**
 * Deletes what no one can need any more: target lists whose head has not been in a queue for
 * TARGETS_UNUSED_DAYS, and ended entries and runs older than `historyDays`. Runs periodically; the
 * heads of the entries in the queues are marked used first, so their lists are never pruned.
 */
export class RetentionService {
  constructor(private readonly deps: { store: { queues: QueueStore; targets: TargetStore }; historyDays: number }) {}

  async prune(now: Date): Promise<RetentionReport> {
    const { store } = this.deps;
    const at = now.toISOString();
    for (const queue of await store.queues.listQueues({})) {
      const heads = queue.entries.filter((e) => isActive(e.state)).map((e) => ({ prNumber: e.prNumber, sha: e.prSha }));
      await store.targets.touchImpactedTargets(queue.repoKey, heads, at);
    }
    const targetLists = await store.targets.pruneImpactedTargets(daysBefore(now, TARGETS_UNUSED_DAYS));
    const history = await store.queues.pruneHistory(daysBefore(now, this.deps.historyDays));
    return { targetLists, ...history };
  }
}

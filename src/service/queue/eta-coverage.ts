import type { MergeEstimate } from '../../domain/eta.js';
import type { QueueDoc } from '../../domain/queue.js';
import { isActive } from '../../domain/states.js';

const HOUR_MS = 3_600_000;
/** PRs given a range and not seen to end (another replica archived them): the oldest go first beyond this. */
const MAX_GIVEN = 100_000;

/** The first range a PR was given, by entry id. */
interface Given {
  earliestMs: number;
  latestMs: number;
}

/**
 * How often the 80% ETA range held the merge, recently: the range each PR was first given once
 * ready (as the simulator's "at submission"), checked when it merges. Kept by this process from the
 * documents the engine commits, so it knows the PRs it saw given a range (none from before a
 * restart, and in a cluster only the queues whose commits it made).
 */
export class EtaCoverage {
  private readonly given = new Map<string, Given>();
  /** Merges checked, oldest first: when, in which queue, and whether the range held it. */
  private readonly checked: { queueId: string; atMs: number; held: boolean }[] = [];

  constructor(private readonly estimates: (doc: QueueDoc) => Promise<ReadonlyMap<string, MergeEstimate>>) {}

  /** A committed document (ended entries still in it): check the merges, note the ranges of newly ready PRs. */
  async observe(doc: QueueDoc): Promise<void> {
    for (const e of doc.entries) {
      if (isActive(e.state)) continue;
      const given = this.given.get(e.id);
      if (!given) continue;
      this.given.delete(e.id);
      if (e.state !== 'MERGED') continue;
      const atMs = Date.parse(e.stateChangedAt);
      this.checked.push({ queueId: doc.id, atMs, held: given.earliestMs <= atMs && atMs <= given.latestMs });
      this.forgetBefore(atMs - HOUR_MS);
    }
    const waiting = doc.entries.filter((e) => isActive(e.state) && e.state !== 'NOT_READY' && !this.given.has(e.id));
    if (waiting.length === 0) return;
    const estimates = await this.estimates(doc);
    for (const e of waiting) {
      const range = estimates.get(e.id)?.estimatedMergeRange;
      if (range) this.given.set(e.id, { earliestMs: Date.parse(range.earliest), latestMs: Date.parse(range.latest) });
    }
    for (const id of this.given.keys()) {
      if (this.given.size <= MAX_GIVEN) break;
      this.given.delete(id);
    }
  }

  /** Merges of the queue in the hour before `now` that were checked, and how many fell inside their range. */
  lastHour(queueId: string, now: Date): { checked: number; held: number } {
    const since = now.getTime() - HOUR_MS;
    let checked = 0;
    let held = 0;
    for (const c of this.checked) {
      if (c.queueId !== queueId || c.atMs < since || c.atMs > now.getTime()) continue;
      checked++;
      if (c.held) held++;
    }
    return { checked, held };
  }

  /** Merges come in time order, give or take a commit: what is well before the hour goes from the front. */
  private forgetBefore(ms: number): void {
    let old = 0;
    while (old < this.checked.length && this.checked[old]!.atMs < ms - HOUR_MS) old++;
    if (old > 0) this.checked.splice(0, old);
  }
}

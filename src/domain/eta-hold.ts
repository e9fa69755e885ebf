import type { Entry } from './entry.js';
import { describeHold, holdEndsAt, mergeHold, passesHold, type HoldMode, type HoldSource, type MergeHold } from './merge-hold.js';

/** A freeze or closed merge windows keeping a PR from merging: what to show, and when it ends (null: when someone lifts it). */
export interface EstimateHold {
  message: string;
  endsAt: string | null;
}

export interface HoldForEstimates {
  hold: MergeHold;
  shown: EstimateHold;
  endMs: number | null;
  mode: HoldMode;
}

/** The queue's hold at `now`, as the estimates read it; null when the queue may merge. */
export function holdForEstimates(queue: HoldSource & { settings: { holdMode?: HoldMode } }, now: Date): HoldForEstimates | null {
  const hold = mergeHold(queue, now);
  if (!hold) return null;
  const ends = holdEndsAt(queue, hold, now);
  return {
    hold,
    shown: { message: describeHold(hold, ends), endsAt: ends?.toISOString() ?? null },
    endMs: ends?.getTime() ?? null,
    mode: queue.settings.holdMode ?? 'merge',
  };
}

/** Whether the hold keeps any of these PRs back (an urgent PR, or one the freeze names, passes it). */
export function holdsBack(held: HoldForEstimates, entries: readonly Pick<Entry, 'priorityValue' | 'prNumber'>[]): boolean {
  return entries.some((e) => !passesHold(held.hold, e));
}

/**
 * A merge time `atMs` estimated as if nothing were held, moved past the hold's end: no merge before
 * it; with `holdMode: start`, a PR whose run has not started moves back by the length of the hold
 * (its run, and those ahead of it, start no earlier than the end).
 */
export function afterHold(held: HoldForEstimates, endMs: number, atMs: number, startsLater: boolean, nowMs: number): number {
  if (held.mode === 'start' && startsLater) return atMs + Math.max(0, endMs - nowMs);
  return Math.max(atMs, endMs);
}

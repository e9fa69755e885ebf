import type { Entry } from './entry.js';
import { isOpenAt, windowStatus, type MergeWindows } from './merge-window.js';
import { SKIP_THE_LINE_PRIORITY } from './priority.js';

/** A queue frozen by someone at `startedAt`: nothing merges until `endsAt` (null: until unfrozen). */
export interface Freeze {
  startedAt: string;
  endsAt: string | null;
  reason: string;
  /** Who froze it: the API token's name, or the GitHub login. */
  by: string;
  /** Pull requests that may merge anyway. */
  allowPullRequests: number[];
}

/** What a held queue holds back: merges only, or also the start of new runs. */
export const HOLD_MODES = ['merge', 'start'] as const;
export type HoldMode = (typeof HOLD_MODES)[number];

/** Why a queue merges nothing now: a freeze (it comes first), or its merge windows are closed. */
export type MergeHold = { kind: 'freeze'; freeze: Freeze } | { kind: 'window' };

/** The part of a queue document a hold depends on. */
export interface HoldSource {
  freeze?: Freeze | null;
  settings: { mergeWindows?: MergeWindows | null };
}

/**
 * The freeze in force at `now`: from the moment it is stored (not from `startedAt`, which another
 * replica's clock wrote) until its end (an ended one no longer holds, even before it is lifted).
 */
export function activeFreeze(q: HoldSource, now: Date): Freeze | null {
  const f = q.freeze;
  if (!f) return null;
  return f.endsAt !== null && Date.parse(f.endsAt) <= now.getTime() ? null : f;
}

/** The hold on the queue's merges at `now`; null when it may merge. */
export function mergeHold(q: HoldSource, now: Date): MergeHold | null {
  const freeze = activeFreeze(q, now);
  if (freeze) return { kind: 'freeze', freeze };
  const windows = q.settings.mergeWindows;
  return windows && !isOpenAt(windows, now) ? { kind: 'window' } : null;
}

/** When the hold ends by itself: the freeze's end, or the next opening of the windows; null: not by itself. */
export function holdEndsAt(q: HoldSource, hold: MergeHold, now: Date): Date | null {
  if (hold.kind === 'freeze') return hold.freeze.endsAt === null ? null : new Date(hold.freeze.endsAt);
  const windows = q.settings.mergeWindows;
  return windows ? windowStatus(windows, now).nextChangeAt : null;
}

/** An `urgent` PR passes any hold; a PR the freeze names passes that freeze. */
export function passesHold(hold: MergeHold, entry: Pick<Entry, 'priorityValue' | 'prNumber'>): boolean {
  if (entry.priorityValue <= SKIP_THE_LINE_PRIORITY) return true;
  return hold.kind === 'freeze' && hold.freeze.allowPullRequests.includes(entry.prNumber);
}

/** What the PR's status and `/merge status` say: "frozen until …: reason" or "outside merge window until …". */
export function describeHold(hold: MergeHold, until: Date | null): string {
  const by = until ? ` until ${until.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
  return hold.kind === 'freeze' ? `frozen${by}: ${hold.freeze.reason}` : `outside merge window${by}`;
}

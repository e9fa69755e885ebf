import type { Entry } from '../domain/entry.js';
import type { Unit } from '../domain/queue.js';
import { SKIP_THE_LINE_PRIORITY } from '../domain/priority.js';
import { reason, type Reason } from '../domain/reasons.js';
import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import { placementIndex } from './placement.js';
import { unitState } from './units.js';
import { impactsAll } from './queue-graph.js';

/** An `ALL` PR waits while placing it would restart more than this share of `concurrency` runs... */
export const ALL_WAIT_RESTART_SHARE = 0.45;
/** ...but never longer than this. */
export const ALL_WAIT_MAX_MINUTES = 120;

/**
 * mergeq's `ALL` policy, admission (docs/all-targets.md): an `ALL` unit goes ahead of every unit
 * under test, and each of those restarts on top of it. A ready `ALL` PR therefore joins the queue at
 * a quieter moment: once it would restart at most `ALL_WAIT_RESTART_SHARE` × `concurrency` runs, or
 * after `ALL_WAIT_MAX_MINUTES` of waiting. Meanwhile it stays NOT_READY (reason `all_targets_wait`)
 * and holds nothing: the PRs arriving after it are placed and tested as usual. `urgent` PRs never wait.
 *
 * Returns why `entry` (ready otherwise; `unit` its would-be unit) waits now, or null to place it.
 */
export function allTargetsWait(d: Draft, entry: Entry, unit: Unit): Reason | null {
  if (d.settings.mode !== 'parallel' || entry.priorityValue <= SKIP_THE_LINE_PRIORITY || !impactsAll(d, unit)) return null;
  const until = waitEndsAt(waitingSince(entry) ?? d.now);
  if (d.now.getTime() >= until.getTime()) return null;
  const limit = Math.floor(ALL_WAIT_RESTART_SHARE * d.settings.concurrency);
  const restarts = restartsIfPlaced(d, entry, unit);
  if (restarts <= limit) return null;
  return reason(
    'all_targets_wait',
    `impacts every target: joins the queue when that restarts at most ${limit} of the runs in flight (${restarts} when it began to wait), by ${until.toISOString()} at the latest`,
  );
}

/** When the entry began waiting to be placed (its latest `all_targets_wait`), or null if it is not waiting. */
export function waitingSince(entry: Entry): Date | null {
  const last = entry.history[entry.history.length - 1];
  return entry.state === 'NOT_READY' && last?.reason.code === 'all_targets_wait' ? new Date(last.at) : null;
}

/** When a wait that began at `since` ends at the latest. */
export function waitEndsAt(since: Date): Date {
  return new Date(since.getTime() + ALL_WAIT_MAX_MINUTES * 60_000);
}

/** Units under test that would be behind the entry, had it its place now: each would restart. */
function restartsIfPlaced(d: Draft, entry: Entry, unit: Unit): number {
  let n = 0;
  for (let i = placementIndex(d, entry.priorityValue, unit, false); i < d.units.length; i++) {
    const u = d.units[i]!;
    if (unitState(d, u) === 'TESTING' && !isLanding(d, u)) n++;
  }
  return n;
}

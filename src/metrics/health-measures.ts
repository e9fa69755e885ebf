import { mergeHold } from '../domain/merge-hold.js';
import { isInFlight, RUN_KINDS, type RunKind, type TestRun } from '../domain/run.js';
import { isActive } from '../domain/states.js';
import type { QueueActivity } from '../service/metrics-service.js';
import type { TimeWindow } from './queue-measures.js';

/** A run in flight this long with no status check at all: the CI is not running on the test branch. */
export const SILENT_AFTER_MS = 10 * 60_000;

/** What says whether a queue is healthy, beyond its depth and times (docs/metrics.md). */
export interface HealthMeasures {
  /** Runs started within the window, by kind. */
  runsStarted: Record<RunKind, number>;
  /** Flake reruns (attempt > 0) started within the window, by kind. */
  flakeReruns: Record<RunKind, number>;
  /** Runs that got no CI result within the queue's testing timeout, ended within the window, by kind. */
  timedOut: Record<RunKind, number>;
  /** Runs in flight for more than `SILENT_AFTER_MS` with no status check reported, by kind. */
  silent: Record<RunKind, number>;
  /**
   * Seconds the queue has had ready PRs waiting without a merge: since the last merge or since the
   * oldest waiting PR became ready, whichever is later; 0 with none waiting, while paused, or while a
   * freeze or closed merge windows hold its merges (no alert for a stop people asked for). The
   * merges looked at are those of the window, so past it this counts from the oldest ready PR.
   */
  mergeStalledSeconds: number;
}

export function measureHealth(activity: QueueActivity, window: TimeWindow): HealthMeasures {
  const within = (at: string | null) => at !== null && Date.parse(at) >= window.since && Date.parse(at) <= window.until;
  const count = (keep: (r: TestRun) => boolean) => {
    const counts = Object.fromEntries(RUN_KINDS.map((k) => [k, 0])) as Record<RunKind, number>;
    for (const r of activity.runs) if (keep(r)) counts[r.kind] += 1;
    return counts;
  };
  return {
    runsStarted: count((r) => within(r.createdAt)),
    flakeReruns: count((r) => r.attempt > 0 && within(r.createdAt)),
    timedOut: count((r) => r.status === 'timed_out' && within(r.finishedAt)),
    silent: count((r) => isInFlight(r) && r.statusChecks.length === 0 && window.until - Date.parse(r.createdAt) > SILENT_AFTER_MS),
    mergeStalledSeconds: mergeStalledSeconds(activity, window.until),
  };
}

function mergeStalledSeconds(activity: QueueActivity, nowMs: number): number {
  if (activity.queue.state === 'paused' || activity.queue.state === 'switching_modes') return 0;
  if (mergeHold(activity.queue, new Date(nowMs))) return 0;
  const waiting = activity.queue.entries.filter((e) => isActive(e.state) && e.state !== 'NOT_READY');
  if (waiting.length === 0) return 0;
  const oldestReady = Math.min(...waiting.map((e) => Date.parse(e.readyAt ?? e.submittedAt)));
  const lastMerge = Math.max(...activity.entries.filter((e) => e.state === 'MERGED').map((e) => Date.parse(e.stateChangedAt)));
  return Math.max(0, (nowMs - Math.max(oldestReady, lastMerge)) / 1000);
}

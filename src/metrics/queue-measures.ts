import type { Entry } from '../domain/entry.js';
import { isInFlight, RUN_KINDS, type RunKind } from '../domain/run.js';
import { isActive, type PrState } from '../domain/states.js';
import { VERDICT_CODES, type VerdictCode } from '../domain/verdict/verdict.js';
import type { QueueActivity } from '../service/metrics-service.js';

export const CONCLUSIONS = ['merged', 'failed', 'cancelled'] as const;
export type Conclusion = (typeof CONCLUSIONS)[number];

const CONCLUSION_OF: Partial<Record<PrState, Conclusion>> = { MERGED: 'merged', FAILED: 'failed', CANCELLED: 'cancelled' };

/** The time window of the rolling totals and histograms, in epoch milliseconds, both ends included. */
export interface TimeWindow {
  since: number;
  until: number;
}

/** The numbers one queue contributes to the metrics. */
export interface QueueMeasures {
  depth: number;
  awaitingMergeability: number;
  runsInFlight: Record<RunKind, number>;
  conclusions: Record<Conclusion, number>;
  restarts: number;
  /** Entries held for restarting without end (`restart_loop`). */
  restartLoopHolds: number;
  /** Stacks with a member merged in the window, and their members merged in it (docs/stacks.md). */
  stacksLanded: number;
  stackMembersLanded: number;
  /** Runs (any kind, reruns included) whose own PRs hold a member of a stack landed in the window: runs per landed stack. */
  stackRuns: number;
  /** Verdicts given in the window (docs/verdicts.md), removals and restarts alike, by code. */
  verdicts: Record<VerdictCode, number>;
  /** Submission to first TESTING, for entries first tested within the window. */
  waitSeconds: number[];
  /** Run creation to result, for runs that passed or failed within the window. */
  testSeconds: Record<RunKind, number[]>;
  /** Submission to end, for entries that ended within the window. */
  timeInQueueSeconds: number[];
}

export function measureQueue(activity: QueueActivity, window: TimeWindow): QueueMeasures {
  const within = (at: string | null): boolean => {
    if (at === null) return false;
    const t = Date.parse(at);
    return t >= window.since && t <= window.until;
  };
  const live = activity.queue.entries;

  const measures: QueueMeasures = {
    depth: live.filter((e) => isActive(e.state)).length,
    awaitingMergeability: live.filter((e) => e.state === 'NOT_READY').length,
    runsInFlight: perKind(() => 0),
    conclusions: { merged: 0, failed: 0, cancelled: 0 },
    restarts: 0,
    restartLoopHolds: 0,
    stacksLanded: 0,
    stackMembersLanded: 0,
    stackRuns: 0,
    verdicts: Object.fromEntries(VERDICT_CODES.map((c) => [c, 0])) as Record<VerdictCode, number>,
    waitSeconds: [],
    testSeconds: perKind(() => []),
    timeInQueueSeconds: [],
  };

  for (const run of activity.queue.runs) {
    if (isInFlight(run)) measures.runsInFlight[run.kind] += 1;
  }
  for (const run of activity.runs) {
    if ((run.status === 'passed' || run.status === 'failed') && within(run.finishedAt)) {
      measures.testSeconds[run.kind].push(secondsBetween(run.createdAt, run.finishedAt as string));
    }
  }

  const landedStacks = new Set<string>();
  for (const entry of activity.entries) {
    if (entry.stack && entry.state === 'MERGED' && within(entry.stateChangedAt)) {
      landedStacks.add(entry.stack.id);
      measures.stackMembersLanded += 1;
    }
    const conclusion = CONCLUSION_OF[entry.state];
    if (conclusion && within(entry.stateChangedAt)) {
      measures.conclusions[conclusion] += 1;
      measures.timeInQueueSeconds.push(secondsBetween(entry.submittedAt, entry.stateChangedAt));
    }
    measures.restarts += restartsWithin(entry, within);
    measures.restartLoopHolds += entry.history.filter((t) => t.reason.code === 'restart_loop' && within(t.at)).length;
    for (const step of entry.history) if (step.verdict && within(step.at)) measures.verdicts[step.verdict.code] += 1;
    const firstTest = entry.history.find((t) => t.state === 'TESTING');
    if (firstTest && within(firstTest.at)) measures.waitSeconds.push(secondsBetween(entry.submittedAt, firstTest.at));
  }
  measures.stacksLanded = landedStacks.size;
  measures.stackRuns = runsOfStacks(activity, landedStacks);
  return measures;
}

/** The runs that tested a member of these stacks as one of their own PRs (not as a PR ahead of them). */
function runsOfStacks(activity: QueueActivity, stackIds: ReadonlySet<string>): number {
  if (stackIds.size === 0) return 0;
  const members = new Set(activity.entries.filter((e) => e.stack && stackIds.has(e.stack.id)).map((e) => e.id));
  return activity.runs.filter((run) => run.prs.some((p) => members.has(p.entryId) && !run.dependencyEntryIds.includes(p.entryId))).length;
}

/** TESTING -> PENDING transitions: the entry's tests were thrown away and it waits to be tested again. */
function restartsWithin(entry: Entry, within: (at: string) => boolean): number {
  let count = 0;
  for (let i = 1; i < entry.history.length; i++) {
    const step = entry.history[i];
    if (step && step.state === 'PENDING' && entry.history[i - 1]?.state === 'TESTING' && within(step.at)) count += 1;
  }
  return count;
}

function perKind<T>(make: () => T): Record<RunKind, T> {
  return Object.fromEntries(RUN_KINDS.map((k) => [k, make()])) as Record<RunKind, T>;
}

function secondsBetween(from: string, to: string): number {
  return Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);
}

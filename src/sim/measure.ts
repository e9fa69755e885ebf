import type { QueueSettings } from '../domain/settings.js';
import { shouldMerge, type SimPr } from './workload.js';

/** How the ranges given at one moment held the merges that followed (eta-error.ts). */
export interface RangeCalibration {
  /** Share of merged PRs whose merge fell inside the range (both ends included). */
  coverage: number;
  /** Shares of merged PRs that merged before the range's earliest, and after its latest. */
  before: number;
  after: number;
  /** Median width of the range, in minutes. */
  medianWidthMin: number;
  /** Median of the range's width as a share of the PR's time in queue. */
  medianWidthShare: number;
  /** Median width against the 80% spread of one CI run (its p90 − p10): 1 is one run's own spread. */
  widthVsOneRun: number | null;
}

/** Median absolute ETA error of the merged PRs, as a share of their time in queue; null when none merged with an estimate. */
export interface EtaErrors {
  atSubmission: number | null;
  atLastRunStart: number | null;
  /**
   * The merged PRs that needed one run of their own: their share of the merged PRs, and their error
   * at last-run start (= at submission, give or take a tick). Their time in queue is one CI run, whose
   * length nothing in the queue tells before it ends: this part of the error is the CI's own spread.
   */
  oneRun: { share: number; atLastRunStart: number | null } | null;
  /** The 80% ranges given at submission and at last-run start, against the merges (null: none merged with one). */
  range: { atSubmission: RangeCalibration | null; atLastRunStart: RangeCalibration | null };
}

/** How one simulated PR ended by the time the books closed. */
export interface PrOutcome {
  state: 'MERGED' | 'FAILED' | 'CANCELLED' | 'UNRESOLVED';
  /** Minutes after the start; null unless merged. */
  mergedAtMinutes: number | null;
  /** The reason code it ended with, when it failed or was cancelled (e.g. `stack_member_failed`). */
  reason?: string;
}

/** One row of the benchmark table (the JSON keys are part of the bench's output format). */
export interface StrategyResult {
  name: string;
  settings: Partial<QueueSettings> | null;
  merged: number;
  failed: number;
  /** Good PRs failed although nothing they break with merged: flake victims. */
  goodFailed: number;
  badMerged: number;
  mergedPerHour: number;
  timeInQueueP50Min: number;
  timeInQueueP95Min: number;
  p50VsOracle: number;
  ciRunsPerMerged: number;
  backlogAtEnd: number;
  keptUp: boolean;
  /** Details beyond the headline columns. */
  extra: {
    cancelled: number;
    goodFailedRate: number;
    /** Good PRs failed because one they break with merged (expected in any queue). */
    conflictFailed: number;
    ciRuns: number;
    /** Reason codes of every recorded transition, counted (where the time goes). */
    reasons?: Record<string, number>;
    /** Verdicts given (docs/verdicts.md), by code: how often a PR paid for another's failure (`bystander`). */
    verdicts?: Record<string, number>;
    wallSeconds?: number;
    /**
     * Set when the simulation stopped early, at this virtual minute: the figures cover what happened
     * until then, and the queue is not counted as keeping up.
     */
    stoppedAtMinutes?: number;
    /** Why: too many PRs unresolved at once (`stopBacklog`), or too much CI (`STOP_TESTED_PRS_PER_PR`). */
    stoppedBecause?: StopReason;
    /** PRs held by the CI runs started, summed over the runs, per PR of the scenario. */
    testedPrsPerPr?: number;
    /** Median absolute ETA error as a share of time in queue, at submission and at the start of the last run. */
    etaErrors?: EtaErrors;
    /** Storms the queue entered and the minutes it spent in them (simulate.ts). */
    storms?: { count: number; minutes: number };
  };
}

/** Why a simulation stopped early: too many PRs unresolved at once, or too much CI (see below). */
export type StopReason = 'backlog' | 'ci_work';

/** Share of unresolved PRs at closing time below which the queue kept up. */
export const KEPT_UP_BACKLOG_SHARE = 0.05;

/**
 * A simulation stops once more than this share of all the scenario's PRs are unresolved at once:
 * five times the kept-up bar, hours of arrivals behind (s20: 500 PRs, 25 hours of arrivals; s500:
 * 2,500, 5 hours). Simulating such a queue's ever longer backlog to the end took minutes (s500 ran
 * out of memory). Transients of queues that do keep up stay far below it: a cluster of `ALL` PRs in
 * s100-all (seed 1) piles up 406 PRs (10%) for three hours, then drains.
 */
export const STOP_BACKLOG_SHARE = 0.25;

/**
 * A simulation also stops once its CI runs held more PRs in all than this many per arrived PR (set
 * after measuring: strategies that keep up stay below 120; a single queue restarting a backlog of
 * thousands passes it within hours, and then held more than fits in memory: s500, `batch`).
 */
export const STOP_TESTED_PRS_PER_PR = 1000;

/** The backlog at which a simulation of `prs` PRs stops (see above). */
export function stopBacklog(prs: number): number {
  return Math.ceil(STOP_BACKLOG_SHARE * prs);
}

export function measure(input: {
  name: string;
  settings: Partial<QueueSettings> | null;
  prs: readonly SimPr[];
  outcomes: readonly PrOutcome[];
  ciRuns: number;
  oracleP50Min: number | null;
}): StrategyResult {
  const { prs, outcomes } = input;
  const count = (f: (o: PrOutcome, i: number) => boolean) => outcomes.filter(f).length;
  const mergedSet = outcomes.map((o) => o.state === 'MERGED');
  const partners = partnersOf(prs);
  const conflictLoser = (i: number) => (partners[i] ?? []).some((j) => mergedSet[j]);
  const goodFailed = count((o, i) => o.state === 'FAILED' && !prs[i]!.bad && !conflictLoser(i));
  const conflictFailed = count((o, i) => o.state === 'FAILED' && !prs[i]!.bad && conflictLoser(i));
  const good = prs.filter((p) => !p.bad).length;
  const merged = count((o) => o.state === 'MERGED');

  const times = outcomes
    .map((o, i) => (o.mergedAtMinutes === null ? null : o.mergedAtMinutes - prs[i]!.arrivalMinutes))
    .filter((t): t is number => t !== null)
    .sort((a, b) => a - b);
  const p50 = percentile(times, 0.5);
  const backlog = count((o) => o.state === 'UNRESOLVED');
  return {
    name: input.name,
    settings: input.settings,
    merged,
    failed: count((o) => o.state === 'FAILED'),
    goodFailed,
    badMerged: count((o, i) => o.state === 'MERGED' && prs[i]!.bad),
    mergedPerHour: round(mergedPerHour(prs, outcomes), 2),
    timeInQueueP50Min: round(p50, 1),
    timeInQueueP95Min: round(percentile(times, 0.95), 1),
    p50VsOracle: input.oracleP50Min ? round(p50 / input.oracleP50Min, 2) : 1,
    ciRunsPerMerged: merged > 0 ? round(input.ciRuns / merged, 2) : 0,
    backlogAtEnd: backlog,
    keptUp: backlog < KEPT_UP_BACKLOG_SHARE * prs.length,
    extra: {
      cancelled: count((o) => o.state === 'CANCELLED'),
      goodFailedRate: good > 0 ? round(goodFailed / good, 4) : 0,
      conflictFailed,
      ciRuns: input.ciRuns,
    },
  };
}

/**
 * The lower bound: every PR tested once, on its own, as soon as it arrives; the ones that should
 * merge do so one CI duration later.
 */
export function oracle(prs: readonly SimPr[]): StrategyResult {
  const merges = shouldMerge(prs);
  const outcomes: PrOutcome[] = prs.map((p, i) =>
    merges[i] ? { state: 'MERGED', mergedAtMinutes: p.arrivalMinutes + p.oracleCiMinutes } : { state: 'FAILED', mergedAtMinutes: null },
  );
  const result = measure({ name: 'oracle', settings: null, prs, outcomes, ciRuns: prs.length, oracleP50Min: null });
  return { ...result, p50VsOracle: 1 };
}

/** Merges between the 10th- and 90th-percentile arrival times, per hour. */
function mergedPerHour(prs: readonly SimPr[], outcomes: readonly PrOutcome[]): number {
  const arrivals = prs.map((p) => p.arrivalMinutes).sort((a, b) => a - b);
  const from = percentile(arrivals, 0.1);
  const to = percentile(arrivals, 0.9);
  if (to <= from) return 0;
  const inWindow = outcomes.filter((o) => o.mergedAtMinutes !== null && o.mergedAtMinutes >= from && o.mergedAtMinutes <= to).length;
  return inWindow / ((to - from) / 60);
}

/** Nearest-rank percentile of sorted values; 0 for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function partnersOf(prs: readonly SimPr[]): number[][] {
  const partners: number[][] = prs.map(() => []);
  for (const p of prs) {
    if (p.breaksWith === null) continue;
    partners[p.index]!.push(p.breaksWith);
    partners[p.breaksWith]!.push(p.index);
  }
  return partners;
}

export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

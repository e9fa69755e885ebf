/** What both estimates of a queue (eta.ts, eta-range.ts) walk: its CI's recent history and its units in order. */

/** What a queue's recent CI says about its next runs. */
export interface CiHistory {
  /** Median wall time of a finished test run; null before the first one finished. */
  medianRunMs: number | null;
  /** Share of first attempts that failed (each failure restarts the runs behind it). */
  failureRate: number;
  /** Share of finished runs that were flake reruns (each costs one more run). */
  flakeRate: number;
  /**
   * The chance that one PR fails the runs it is in (and restarts the runs built on it). Parallel
   * mode: `failureRate` spread over the PRs of a run, which fails when any of them does. Single mode:
   * read from how often the recent runs were rebuilt (`restartChancePerPr`). Absent: `failureRate`.
   */
  breakRate?: number;
  /**
   * The recent runs' wall times, shortest first: how long a run in flight still has to go is their
   * median beyond the time it has already run. Absent: the median alone.
   */
  durationsMs?: number[];
  /**
   * The run times the range draws from: `durationsMs` with the runs cancelled meanwhile counted as
   * lasting longer than they ran (`runDurations`). Absent: `durationsMs`. The point keeps the finished
   * runs alone: measured, its error is lower so (bench:queue, s20 `parallel`, seed 1, at last-run start: 31% against 33%).
   */
  rangeDurationsMs?: number[];
  /** Restarts of a run in flight by a PR placed ahead of it, per millisecond of run (`preemptionsPerMs`). Absent: none. */
  preemptionsPerMs?: number;
}

/** One unit (a single PR or a batch) with an active entry, in queue order, as both estimates walk it. */
export interface PlannedUnit {
  /** Its active entries. */
  entryIds: string[];
  /** Every entry passed: it merges now. */
  decided: boolean;
  /** Index in `QueuePlan.runsInFlight` of the run deciding it, if one is in flight. */
  run: number | null;
  /**
   * Indexes (in `QueuePlan.units`) of the units ahead it waits for: the units its run is built on
   * (parallel mode: its lane; single mode: every unit ahead but the suspects it left out); null for a
   * unit without a run in single mode, which waits for every unit ahead.
   */
  deps: number[] | null;
}

export interface QueuePlan {
  nowMs: number;
  concurrency: number;
  /** A passing run merges the PRs it is built on with its own (`canOptimisticallyMerge`). */
  optimistic: boolean;
  /** How long each main run in flight has run. */
  runsInFlight: number[];
  units: PlannedUnit[];
}

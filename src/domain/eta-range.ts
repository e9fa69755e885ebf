import type { CiHistory, QueuePlan } from './eta-plan.js';
import { Random } from './random.js';

/** The share of merges a range should hold. */
export const RANGE_CONFIDENCE = 0.8;

/** Where a PR's merge should fall, `confidence` of the time. */
export interface MergeRange {
  /** ISO time. */
  earliest: string;
  /** ISO time. */
  latest: string;
  confidence: number;
}

/** Futures drawn per estimate: enough for the 10th and 90th percentiles to move by a minute or two at most. */
const DRAWS = 200;
/** Flake reruns drawn for one unit at most: a history of nothing but reruns must not loop forever. */
const MAX_RERUNS = 3;

/**
 * The 80% range of each planned unit's merge (epoch ms), from `DRAWS` futures of the queue. Each
 * future walks the plan as the point estimate does, with the run times drawn from the recent ones
 * (a run in flight: from those that lasted longer than it has run so far), a failure of each
 * undecided unit drawn at the recent chance that a PR fails its runs (`breakRate`; the units behind
 * it are rebuilt once it is known, and take one more run), flake reruns of a unit's own run at the
 * recent flake rate, and in parallel mode restarts by PRs placed ahead (`preemptionsPerMs`). A
 * unit's own failure ends its time in the queue without a merge, so its range is that of the
 * futures in which it merges. With optimistic merging a unit merges as soon as a run built on it
 * passes (`mergeWithRunsBehind`). The draws are seeded by the queue: the same queue and history give the
 * same range.
 */
export function mergeRanges(plan: QueuePlan, history: CiHistory, seed: string): { earliestMs: number; latestMs: number; confidence: number }[] {
  const random = new Random(0x5eed).fork(seed);
  const durations = history.rangeDurationsMs?.length ? history.rangeDurationsMs : history.durationsMs?.length ? history.durationsMs : [history.medianRunMs ?? 0];
  const draw = (): number => durations[random.int(durations.length)]!;
  const drawRemaining = (elapsed: number): number => {
    const first = firstAbove(durations, elapsed);
    return first === durations.length ? 0 : durations[first + random.int(durations.length - first)]! - elapsed;
  };
  const { nowMs, units } = plan;
  const preemptionRate = history.preemptionsPerMs ?? 0;
  /** A PR placed ahead while the unit is undecided (a Poisson process at the recent rate) restarts its run. */
  const preempt = (end: number): number => {
    let at = nowMs;
    for (let restart = 0; restart < MAX_RERUNS && preemptionRate > 0; restart++) {
      at += random.exponential(1 / preemptionRate);
      if (at >= end) break;
      end = at + draw();
    }
    return end;
  };
  const breakRate = history.breakRate ?? history.failureRate;
  const samples = units.map(() => new Array<number>(DRAWS));
  const mergeAt = new Array<number>(units.length);
  const failedAt = new Array<number>(units.length);
  const endAt = new Array<number>(units.length);
  for (let s = 0; s < DRAWS; s++) {
    const runEnds = plan.runsInFlight.map((elapsed) => nowMs + drawRemaining(elapsed));
    const slots = [...runEnds].sort((a, b) => a - b).slice(0, plan.concurrency);
    while (slots.length < plan.concurrency) slots.unshift(nowMs);
    let mergedBy = nowMs;
    let lastFailure = Number.NEGATIVE_INFINITY;
    units.forEach((unit, i) => {
      let end: number;
      if (unit.decided) end = nowMs;
      else if (unit.run !== null) end = runEnds[unit.run]!;
      else {
        slots.sort((a, b) => a - b);
        end = slots.shift()! + draw();
        slots.push(end);
      }
      let after = mergedBy;
      let failureAhead = lastFailure;
      if (unit.deps) {
        after = nowMs;
        failureAhead = Number.NEGATIVE_INFINITY;
        for (const d of unit.deps) {
          if (failedAt[d]! === Number.NEGATIVE_INFINITY) after = Math.max(after, mergeAt[d]!);
          else failureAhead = Math.max(failureAhead, failedAt[d]!);
        }
      }
      if (!unit.decided) {
        // Rebuilt without the failed unit once its failure is known; then its own flake reruns.
        if (failureAhead > Number.NEGATIVE_INFINITY) end = Math.max(end, failureAhead + draw());
        for (let rerun = 0; rerun < MAX_RERUNS && random.chance(history.flakeRate); rerun++) end += draw();
        end = preempt(end);
      }
      const at = Math.max(after, end);
      samples[i]![s] = at;
      endAt[i] = end;
      if (!unit.decided && random.chance(1 - (1 - breakRate) ** unit.entryIds.length)) {
        failedAt[i] = end;
        mergeAt[i] = Number.NEGATIVE_INFINITY;
        if (end > lastFailure) lastFailure = end;
      } else {
        failedAt[i] = Number.NEGATIVE_INFINITY;
        mergeAt[i] = at;
        if (at > mergedBy) mergedBy = at;
      }
    });
    if (plan.optimistic) mergeWithRunsBehind(plan, s, samples, endAt, failedAt);
  }
  const tail = (1 - RANGE_CONFIDENCE) / 2;
  return samples.map((drawn) => {
    drawn.sort((a, b) => a - b);
    return { earliestMs: quantile(drawn, tail), latestMs: quantile(drawn, 1 - tail), confidence: RANGE_CONFIDENCE };
  });
}

/**
 * With optimistic merging, a passing run merges every unit it is built on, whether or not their own
 * runs have ended: a unit merges by the time the first passing run that holds it ends — its own, one
 * whose units ahead include it, or in single mode that of a unit behind with no run yet (to be built
 * on every unit ahead).
 */
function mergeWithRunsBehind(plan: QueuePlan, s: number, samples: number[][], endAt: number[], failedAt: number[]): void {
  const { units } = plan;
  const passes = (j: number) => failedAt[j] === Number.NEGATIVE_INFINITY;
  let first = Number.POSITIVE_INFINITY;
  for (let k = units.length - 1; k >= 0; k--) {
    if (passes(k) && units[k]!.deps === null) first = Math.min(first, endAt[k]!);
    samples[k]![s] = Math.min(samples[k]![s]!, first);
  }
  units.forEach((unit, j) => {
    if (!passes(j) || !unit.deps) return;
    samples[j]![s] = Math.min(samples[j]![s]!, endAt[j]!);
    for (const d of unit.deps) samples[d]![s] = Math.min(samples[d]![s]!, endAt[j]!);
  });
}

/** The index of the first value above `x` in ascending `sorted` (its length when none is). */
function firstAbove(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

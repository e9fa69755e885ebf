import { runDurations } from './eta-durations.js';
import { afterHold, holdForEstimates, holdsBack, type EstimateHold } from './eta-hold.js';
import { preemptionsPerMs } from './eta-preemption.js';
import { restartChancePerPr } from './eta-restarts.js';
import { mergeRanges, type MergeRange } from './eta-range.js';
import type { QueueDoc } from './queue.js';
import { isInFlight, type TestRun } from './run.js';
import { isActive } from './states.js';
import type { CiHistory, PlannedUnit, QueuePlan } from './eta-plan.js';

export type { MergeRange } from './eta-range.js';
export type { CiHistory, PlannedUnit, QueuePlan } from './eta-plan.js';

export interface MergeEstimate {
  /** ISO time; null when no honest estimate can be given (see `reason`). */
  estimatedMergeAt: string | null;
  /** Where the merge should fall with `confidence` (0.8); null exactly when `estimatedMergeAt` is. */
  estimatedMergeRange: MergeRange | null;
  reason: { code: 'queue_paused' | 'not_ready' | 'no_ci_history' | 'queue_held'; message: string } | null;
  /** The freeze or closed merge windows keeping the PR from merging at the time of the estimate (absent: none). */
  hold?: EstimateHold;
}

/** How many recent finished runs the history looks at. */
export const HISTORY_RUNS = 50;

/**
 * Recent runs (newest first or any order) → the numbers the estimate needs. `lanes` (parallel mode):
 * also what cancelled runs tell of run times and PRs placed ahead (`rangeDurationsMs`,
 * `preemptionsPerMs`). Not in single mode, where cancellations follow from run lengths: a run behind
 * merges the PRs of a long run ahead, and a run built on a suspect is rebuilt, then rebuilt again
 * when the suspect is readmitted (which the drawn failures ahead already stand for). Measured on s20
 * with them, its ranges moved late: 71% coverage at last-run start, 28% of merges before the range.
 * There its rebuilt runs tell how likely a failure ahead is instead (`restartChancePerPr`).
 */
export function ciHistoryOf(runs: readonly TestRun[], { lanes = false }: { lanes?: boolean } = {}): CiHistory {
  const finished = runs
    .filter((r) => (r.status === 'passed' || r.status === 'failed') && r.finishedAt)
    .sort((a, b) => Date.parse(b.finishedAt!) - Date.parse(a.finishedAt!))
    .slice(0, HISTORY_RUNS);
  if (finished.length === 0) return { medianRunMs: null, failureRate: 0, flakeRate: 0, breakRate: 0, durationsMs: [] };
  const durations = finished.map((r) => Date.parse(r.finishedAt!) - Date.parse(r.createdAt)).sort((a, b) => a - b);
  const firsts = finished.filter((r) => r.attempt === 0 && r.kind === 'main');
  const failureRate = firsts.length ? firsts.filter((r) => r.status === 'failed').length / firsts.length : 0;
  const prsPerRun = firsts.length ? firsts.reduce((n, r) => n + Math.max(1, r.prs.length), 0) / firsts.length : 1;
  const restartChance = lanes ? null : restartChancePerPr(runs, finished[finished.length - 1]!.finishedAt!);
  return {
    medianRunMs: durations[Math.floor(durations.length / 2)]!,
    failureRate,
    flakeRate: finished.filter((r) => r.attempt > 0).length / finished.length,
    // A run of n PRs passes when each of them does: 1 − failureRate = (1 − breakRate)^n.
    breakRate: restartChance ?? 1 - (1 - failureRate) ** (1 / prsPerRun),
    durationsMs: durations,
    ...(lanes ? { rangeDurationsMs: runDurations(finished, runs), preemptionsPerMs: preemptionsPerMs(runs) } : {}),
  };
}

/** The median time a run that has run `elapsedMs` still needs, from the recent runs longer than that (0 when none was). */
export function remainingRunMs(history: Pick<CiHistory, 'medianRunMs' | 'durationsMs'>, elapsedMs: number): number {
  const longer = (history.durationsMs?.length ? history.durationsMs : [history.medianRunMs ?? 0]).filter((d) => d > elapsedMs);
  return longer.length ? longer[Math.floor(longer.length / 2)]! - elapsedMs : 0;
}

/**
 * When each active entry should merge, and the range it should merge in. Units (single PRs or
 * batches) are decided in queue order; a unit with a run in flight ends when its run should (the
 * median of the recent runs that lasted longer than it has so far, `remainingRunMs`), the others take
 * the next of `concurrency` slots as runs in flight end. A unit merges once it and the units it
 * waits for are decided: those its run is built on (in single mode every unit ahead but the suspects
 * it left out; in parallel mode its lane), every unit ahead for a unit without a run in single mode.
 * A failure among those still undecided sends it back for about one more run time, weighted by the
 * chance of one; flake reruns add their share of a run too. The range (`mergeRanges`) walks the same
 * plan with drawn run times, failures and reruns. A freeze or closed merge windows (eta-hold.ts) move
 * the PRs they hold back past their end, or, with no end set, leave them without an estimate
 * (`queue_held`); each such estimate names the hold.
 */
export function estimateMergeTimes(queue: Pick<QueueDoc, 'id' | 'state' | 'settings' | 'entries' | 'units' | 'runs' | 'freeze'>, history: CiHistory, now: Date): Map<string, MergeEstimate> {
  const estimates = new Map<string, MergeEstimate>();
  const active = queue.entries.filter((e) => isActive(e.state));
  const none = (reason: MergeEstimate['reason']) => ({ estimatedMergeAt: null, estimatedMergeRange: null, reason });
  for (const e of active) if (e.state === 'NOT_READY') estimates.set(e.id, none({ code: 'not_ready', message: 'not ready: no estimate until it is' }));
  if (queue.state === 'paused' || queue.state === 'switching_modes') {
    for (const e of active) if (!estimates.has(e.id)) estimates.set(e.id, none({ code: 'queue_paused', message: `the queue is ${queue.state === 'paused' ? 'paused' : 'switching modes'}` }));
    return estimates;
  }
  if (history.medianRunMs === null) {
    const held = holdForEstimates(queue, now);
    for (const e of active) {
      if (estimates.has(e.id)) continue;
      const hold = held && holdsBack(held, [e]) ? { hold: held.shown } : {};
      estimates.set(e.id, { ...none({ code: 'no_ci_history', message: 'no test run has finished yet to estimate from' }), ...hold });
    }
    return estimates;
  }
  const plan = planQueue(queue, now);
  const points = pointEstimates(plan, { ...history, medianRunMs: history.medianRunMs });
  const ranges = mergeRanges(plan, history, queue.id);
  const held = holdForEstimates(queue, now);
  const entryOf = new Map(queue.entries.map((e) => [e.id, e]));
  plan.units.forEach((unit, i) => {
    let at = points[i]!;
    let { earliestMs, latestMs } = ranges[i]!;
    const hold = held && holdsBack(held, unit.entryIds.map((id) => entryOf.get(id)!)) ? held : null;
    if (hold && hold.endMs === null) {
      // Frozen until someone unfreezes it: no time can be promised.
      const message = `held: ${hold.shown.message}; no estimate until it is lifted`;
      for (const id of unit.entryIds) estimates.set(id, { ...none({ code: 'queue_held', message }), hold: hold.shown });
      return;
    }
    if (hold) {
      const startsLater = !unit.decided && unit.run === null;
      [at, earliestMs, latestMs] = [at, earliestMs, latestMs].map((ms) => afterHold(hold, hold.endMs!, ms, startsLater, plan.nowMs)) as [number, number, number];
    }
    // The range always holds the point: both are read side by side.
    const estimatedMergeRange = { earliest: iso(Math.min(earliestMs, at)), latest: iso(Math.max(latestMs, at)), confidence: ranges[i]!.confidence };
    for (const id of unit.entryIds) estimates.set(id, { estimatedMergeAt: iso(at), estimatedMergeRange, reason: null, ...(hold ? { hold: hold.shown } : {}) });
  });
  return estimates;
}

function iso(ms: number): string {
  return new Date(Math.round(ms)).toISOString();
}

/** The queue's units with active entries, in queue order, and its main runs in flight. */
export function planQueue(queue: Pick<QueueDoc, 'settings' | 'entries' | 'units' | 'runs'>, now: Date): QueuePlan {
  const nowMs = now.getTime();
  const stateOf = new Map(queue.entries.filter((e) => isActive(e.state)).map((e) => [e.id, e.state]));
  const inFlight = queue.runs.filter((r) => isInFlight(r) && r.kind === 'main');
  const runIndex = new Map<string, number>();
  inFlight.forEach((r, i) => runIndex.set(r.unitId, runIndex.get(r.unitId) ?? i));
  const lanes = queue.settings.mode === 'parallel';
  const unitOfEntry = new Map(queue.units.flatMap((u) => u.entryIds.map((id) => [id, u.id] as const)));
  const planned = new Map<string, number>();
  const units: PlannedUnit[] = [];
  for (const unit of queue.units) {
    const entryIds = unit.entryIds.filter((id) => stateOf.has(id));
    if (entryIds.length === 0) continue;
    const run = runIndex.get(unit.id) ?? null;
    let deps: number[] | null = null;
    // A run waits for, and fails with, only the units it is built on: in single mode every unit
    // ahead but the suspects it leaves out, which it merges past.
    if (lanes || run !== null) {
      const depUnits = new Set((run === null ? [] : inFlight[run]!.dependencyEntryIds).map((id) => unitOfEntry.get(id)));
      deps = [...depUnits].flatMap((u) => (u !== undefined && u !== unit.id && planned.has(u) ? [planned.get(u)!] : []));
    }
    planned.set(unit.id, units.length);
    units.push({ entryIds, decided: entryIds.every((id) => stateOf.get(id) === 'TESTS_PASSED'), run, deps });
  }
  return { nowMs, concurrency: queue.settings.concurrency, optimistic: queue.settings.canOptimisticallyMerge, runsInFlight: inFlight.map((r) => Math.max(0, nowMs - Date.parse(r.createdAt))), units };
}

/** The point estimate (epoch ms) of each planned unit. */
function pointEstimates(plan: QueuePlan, history: CiHistory & { medianRunMs: number }): number[] {
  const { nowMs } = plan;
  const runMs = history.medianRunMs;
  const runEnds = plan.runsInFlight.map((elapsed) => nowMs + remainingRunMs(history, elapsed));
  const slots = [...runEnds].sort((a, b) => a - b).slice(0, plan.concurrency);
  while (slots.length < plan.concurrency) slots.unshift(nowMs);
  const mergeAt: number[] = [];
  const undecided: boolean[] = [];
  let undecidedCount = 0;
  let mergedBy = nowMs;
  return plan.units.map((unit, i) => {
    let end: number;
    if (unit.decided) end = nowMs;
    else if (unit.run !== null) end = runEnds[unit.run]!;
    else {
      slots.sort((a, b) => a - b);
      end = slots.shift()! + runMs;
      slots.push(end);
    }
    const after = unit.deps ? Math.max(nowMs, ...unit.deps.map((d) => mergeAt[d]!)) : mergedBy;
    const undecidedAhead = unit.deps ? unit.deps.filter((d) => undecided[d]).length : undecidedCount;
    const base = Math.max(after, end);
    mergedBy = Math.max(mergedBy, base);
    // A failure ahead sends this unit back for about one more run; failures overlap, so it is the
    // chance of at least one, not their count. A flake rerun of its own costs its share of a run.
    const risk = unit.decided ? 0 : runMs * (1 - (1 - history.failureRate) ** undecidedAhead + history.flakeRate);
    mergeAt[i] = base;
    undecided[i] = !unit.decided;
    if (!unit.decided) undecidedCount++;
    return base + risk;
  });
}

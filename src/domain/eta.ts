import type { QueueDoc } from './queue.js';
import type { TestRun } from './run.js';
import { isActive } from './states.js';

/** What a queue's recent CI says about its next runs. */
export interface CiHistory {
  /** Median wall time of a finished test run; null before the first one finished. */
  medianRunMs: number | null;
  /** Share of first attempts that failed (each failure restarts the runs behind it). */
  failureRate: number;
  /** Share of finished runs that were flake reruns (each costs one more run). */
  flakeRate: number;
  /**
   * The recent runs' wall times, shortest first: how long a run in flight still has to go is their
   * median beyond the time it has already run. Absent: the median alone.
   */
  durationsMs?: number[];
}

export interface MergeEstimate {
  /** ISO time; null when no honest estimate can be given (see `reason`). */
  estimatedMergeAt: string | null;
  reason: { code: 'queue_paused' | 'not_ready' | 'no_ci_history'; message: string } | null;
}

/** How many recent finished runs the history looks at. */
export const HISTORY_RUNS = 50;

/** Recent finished runs (newest first or any order) → the numbers the estimate needs. */
export function ciHistoryOf(runs: readonly TestRun[]): CiHistory {
  const finished = runs
    .filter((r) => (r.status === 'passed' || r.status === 'failed') && r.finishedAt)
    .sort((a, b) => Date.parse(b.finishedAt!) - Date.parse(a.finishedAt!))
    .slice(0, HISTORY_RUNS);
  if (finished.length === 0) return { medianRunMs: null, failureRate: 0, flakeRate: 0, durationsMs: [] };
  const durations = finished.map((r) => Date.parse(r.finishedAt!) - Date.parse(r.createdAt)).sort((a, b) => a - b);
  const firsts = finished.filter((r) => r.attempt === 0 && r.kind === 'main');
  return {
    medianRunMs: durations[Math.floor(durations.length / 2)]!,
    failureRate: firsts.length ? firsts.filter((r) => r.status === 'failed').length / firsts.length : 0,
    flakeRate: finished.filter((r) => r.attempt > 0).length / finished.length,
    durationsMs: durations,
  };
}

/** The median time a run that has run `elapsedMs` still needs, from the recent runs longer than that (0 when none was). */
export function remainingRunMs(history: Pick<CiHistory, 'medianRunMs' | 'durationsMs'>, elapsedMs: number): number {
  const longer = (history.durationsMs?.length ? history.durationsMs : [history.medianRunMs ?? 0]).filter((d) => d > elapsedMs);
  return longer.length ? longer[Math.floor(longer.length / 2)]! - elapsedMs : 0;
}

/**
 * When each active entry should merge. Units (single PRs or batches) are decided in queue order; a
 * unit with a run in flight ends when its run should (the median of the recent runs that lasted
 * longer than it has so far, `remainingRunMs`), the others take the
 * next of `concurrency` slots as runs in flight end. A unit merges once it and every unit ahead are
 * decided (in parallel mode: every unit its run is built on). A failure among the undecided units
 * ahead sends the runs behind back for about one more run time, weighted by the chance of one;
 * flake reruns add their share of a run too.
 */
export function estimateMergeTimes(queue: Pick<QueueDoc, 'state' | 'settings' | 'entries' | 'units' | 'runs'>, history: CiHistory, now: Date): Map<string, MergeEstimate> {
  const estimates = new Map<string, MergeEstimate>();
  const active = queue.entries.filter((e) => isActive(e.state));
  const none = (reason: MergeEstimate['reason']) => ({ estimatedMergeAt: null, reason });
  for (const e of active) if (e.state === 'NOT_READY') estimates.set(e.id, none({ code: 'not_ready', message: 'not ready: no estimate until it is' }));
  if (queue.state === 'paused' || queue.state === 'switching_modes') {
    for (const e of active) if (!estimates.has(e.id)) estimates.set(e.id, none({ code: 'queue_paused', message: `the queue is ${queue.state === 'paused' ? 'paused' : 'switching modes'}` }));
    return estimates;
  }
  const runMs = history.medianRunMs;
  if (runMs === null) {
    for (const e of active) if (!estimates.has(e.id)) estimates.set(e.id, none({ code: 'no_ci_history', message: 'no test run has finished yet to estimate from' }));
    return estimates;
  }

  const nowMs = now.getTime();
  const stateOf = new Map(active.map((e) => [e.id, e.state]));
  const inFlight = queue.runs.filter((r) => (r.status === 'creating' || r.status === 'pending') && r.kind === 'main');
  const runEnd = (r: TestRun) => nowMs + remainingRunMs(history, Math.max(0, nowMs - Date.parse(r.createdAt)));
  const slots = inFlight.map(runEnd).sort((a, b) => a - b).slice(0, queue.settings.concurrency);
  while (slots.length < queue.settings.concurrency) slots.unshift(nowMs);

  // In parallel mode a unit waits only for what its run is built on (its lane); in single mode for every unit ahead.
  const lanes = queue.settings.mode === 'parallel';
  const unitOfEntry = new Map(queue.units.flatMap((u) => u.entryIds.map((id) => [id, u.id] as const)));
  const mergeAt = new Map<string, number>();
  const undecided = new Set<string>();
  let mergedBy = nowMs;
  for (const unit of queue.units) {
    const states = unit.entryIds.map((id) => stateOf.get(id)).filter((s) => s !== undefined);
    if (states.length === 0) continue;
    const decided = states.every((s) => s === 'TESTS_PASSED');
    const run = inFlight.find((r) => r.unitId === unit.id);
    let end: number;
    if (decided) end = nowMs;
    else if (run) end = runEnd(run);
    else {
      slots.sort((a, b) => a - b);
      end = slots.shift()! + runMs;
      slots.push(end);
    }
    let after: number;
    let undecidedAhead: number;
    if (lanes) {
      const deps = new Set((run?.dependencyEntryIds ?? []).map((id) => unitOfEntry.get(id)).filter((u): u is string => u !== undefined && u !== unit.id));
      after = Math.max(nowMs, ...[...deps].map((u) => mergeAt.get(u) ?? nowMs));
      undecidedAhead = [...deps].filter((u) => undecided.has(u)).length;
    } else {
      after = mergedBy;
      undecidedAhead = undecided.size;
    }
    const base = Math.max(after, end);
    mergedBy = Math.max(mergedBy, base);
    // A failure ahead sends this unit back for about one more run; failures overlap, so it is the
    // chance of at least one, not their count. A flake rerun of its own costs its share of a run.
    const risk = decided ? 0 : runMs * (1 - (1 - history.failureRate) ** undecidedAhead + history.flakeRate);
    mergeAt.set(unit.id, base);
    if (!decided) undecided.add(unit.id);
    const at = new Date(Math.round(base + risk)).toISOString();
    for (const id of unit.entryIds) if (stateOf.has(id)) estimates.set(id, { estimatedMergeAt: at, reason: null });
  }
  return estimates;
}

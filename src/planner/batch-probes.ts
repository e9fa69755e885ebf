import type { Unit } from '../domain/queue.js';
import { isInFlight, type TestRun } from '../domain/run.js';
import type { BisectionOptions, FinishedProbeResult, ProbeResult } from './batching/prefix-evidence.js';
import type { Draft } from './draft.js';
import { classifyFailure, testResultSettings } from './test-results.js';
import { isLanded } from './units.js';

/**
 * What is known about the prefixes of a failing batch: prefix k = the batch's dependencies (the PRs
 * ahead of it in its failed run, less what has landed since) + its first k entries.
 */
export interface PrefixProbes {
  /** The batch's dependencies, in order. */
  deps: string[];
  /** This bisection's own runs by prefix length (`pending` while in flight). */
  known: Map<number, ProbeResult>;
  options: BisectionOptions;
  /** A run behind each result, own runs first: the proof or the failure the outcome rests on. */
  runs: Map<number, TestRun>;
  /** This bisection's runs in flight, by prefix length. */
  live: Map<number, TestRun[]>;
}

export function readProbes(d: Draft, unit: Unit, failed: TestRun, since: string): PrefixProbes {
  const own = new Set(unit.entryIds);
  const deps = failed.prs.map((p) => p.entryId).filter((id) => !own.has(id) && !isLanded(d.entry(id)));
  const skipRedundant = d.settings.optimizationMode === 'bisection_skip_redundant_tests';
  const known = new Map<number, ProbeResult>();
  const runs = new Map<number, TestRun>();
  const live = new Map<number, TestRun[]>();
  const sameBase = new Map<number, FinishedProbeResult>();
  const sameBaseRuns = new Map<number, TestRun>();
  const testingSince = lastTestingAt(d, unit);
  const flakyRetries = testResultSettings(d.settings).flakyTestRetries;
  const forgiven = new Map<number, number>();
  const stack = unit.entryIds.some((id) => d.entry(id)?.stack !== undefined);

  for (const run of d.runs.values()) {
    if (run.status === 'cancelled' || run.createdAt < testingSince) continue;
    const k = prefixLength(d, run, deps, unit.entryIds);
    if (k === null) continue;
    const result: ProbeResult = isInFlight(run) ? 'pending' : run.status === 'passed' ? 'passed' : 'failed';
    if (run.kind === 'bisection' && run.unitId === unit.id && run.createdAt >= since && run.attempt === 0) {
      // A stack's prefix that failed only on known flaky or quarantined tests is tested again (up to
      // `flakyTestRetries` times), as any PR's run would be: a flake never names a culprit layer.
      if (stack && result === 'failed' && classifyFailure(d, run, d.now) === 'flaky' && (forgiven.get(k) ?? 0) < flakyRetries) {
        forgiven.set(k, (forgiven.get(k) ?? 0) + 1);
        continue;
      }
      if (result === 'pending') live.set(k, [...(live.get(k) ?? []), run]);
      // A pass is trusted over a failure of the same content (see prefix-evidence.ts).
      if (known.get(k) !== 'passed') {
        known.set(k, result);
        runs.set(k, run);
      }
    } else if (result !== 'pending' && sameBase.get(k) !== 'passed') {
      sameBase.set(k, result);
      sameBaseRuns.set(k, run);
    }
  }
  if (skipRedundant) {
    // `evaluate` takes the whole batch as failed: its own failed run is the evidence.
    if (!sameBaseRuns.has(unit.entryIds.length)) sameBaseRuns.set(unit.entryIds.length, failed);
    for (const [k, run] of sameBaseRuns) if (!runs.has(k) || known.get(k) === 'pending') runs.set(k, run);
  }
  return { deps, known, options: { skipRedundant, sameBaseResults: sameBase }, runs, live };
}

/** k when the run (less what landed since it was built) is exactly `deps` + the first k entries. */
function prefixLength(d: Draft, run: TestRun, deps: readonly string[], entries: readonly string[]): number | null {
  let i = 0;
  let k = 0;
  for (const p of run.prs) {
    if (i < deps.length && p.entryId === deps[i]) {
      i++;
      continue;
    }
    if (isLanded(d.entry(p.entryId))) continue;
    if (i < deps.length || p.entryId !== entries[k]) return null;
    k++;
  }
  return i === deps.length && k > 0 ? k : null;
}

/** When the unit's entries last started testing: older results were built on other content. */
export function lastTestingAt(d: Draft, unit: Unit): string {
  const first = d.entry(unit.entryIds[0]!);
  const history = first?.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.state === 'TESTING') return history[i]!.at;
  return '';
}

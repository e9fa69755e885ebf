import {
  evaluate,
  type BisectionOptions,
  type BisectionOutcome,
  type PrefixResults,
} from './prefix-evidence.js';
import { spreadProbes } from './spread-probes.js';

/**
 * Bisection of a failing batch of n entries, decided once every unit ahead of it is resolved
 * (queue-semantics.md, "Batching" rules 3-4). The search tests prefixes of the batch as `bisection`
 * runs; `known` holds this bisection's own runs by prefix length (`pending` while in flight).
 *
 * Flakes: a flaky failure of prefix k would name entry k wrongly. The bisection only names an index;
 * the named entry is not FAILED outright but goes on as a single unit, where the planner applies
 * `flakeRetries` and `pendingFailureDepth` to it like to any unit whose failure is its own.
 */

/**
 * The prefix lengths to start now: a c-ary search. The first culprit lies in
 * (longest passing prefix, shortest failing prefix]; the new probes split that interval as evenly as
 * the probes already in flight allow, so with c runs and none in flight each round cuts it to
 * 1/(c+1). Starts at most `concurrency` minus the probes in flight (including those that have become
 * useless, see `obsoleteProbes`), never a length that is pending or already known, and nothing once
 * the outcome is decided.
 */
export function nextProbes(
  n: number,
  known: PrefixResults,
  concurrency: number,
  options: BisectionOptions,
): number[] {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`bisection concurrency must be a positive integer, got ${concurrency}`);
  }
  const { outcome, pending } = evaluate(n, known, options);
  if (outcome.kind !== 'searching') return [];
  const budget = concurrency - pending.length;
  if (budget <= 0) return [];
  return spreadProbes(outcome.longestPassing, outcome.shortestFailing, pending, budget);
}

/**
 * The 1-based index i of the first culprit once it is determined: prefix i failed and prefix i-1
 * passed (or i = 1). Entries 1..i-1 may then merge, because the passing run of prefix i-1 proved
 * exactly them together on the target head; entry i goes on as a single unit; entries after i return
 * to PENDING keeping their order (and are batched again). Null while the search goes on, and when the
 * whole batch passed on rerun (see `bisectionOutcome`). A single-entry batch is its own culprit.
 */
export function culprit(n: number, known: PrefixResults, options: BisectionOptions): number | null {
  const { outcome } = evaluate(n, known, options);
  return outcome.kind === 'culprit' ? outcome.index : null;
}

/** The full verdict, including `all_passed` (the batch's failure was a flake: all n entries merge). */
export function bisectionOutcome(n: number, known: PrefixResults, options: BisectionOptions): BisectionOutcome {
  return evaluate(n, known, options).outcome;
}

/**
 * Probes in flight that can no longer narrow the search: at or below the longest passing prefix, at
 * or beyond the shortest failing one, or all of them once the outcome is decided. The planner may
 * cancel them to free their slots. Kept, a pass among those beyond the failing prefix still counts
 * (it proves every entry it contains and marks the shorter failure as a flake).
 */
export function obsoleteProbes(n: number, known: PrefixResults, options: BisectionOptions): number[] {
  const { outcome, pending } = evaluate(n, known, options);
  if (outcome.kind !== 'searching') return pending;
  return pending.filter((p) => p <= outcome.longestPassing || p >= outcome.shortestFailing);
}

import {
  bisectionOutcome,
  nextProbes,
  type BisectionOptions,
  type BisectionOutcome,
  type ProbeResult,
} from '../../../src/planner/batching/index.js';

/** Answers a prefix run: true when prefix `length` passes. */
export type Oracle = (length: number) => boolean;

/** A truthful CI: a prefix passes iff it contains none of the bad entries (1-based indexes). */
export function truthfulOracle(badEntries: readonly number[]): Oracle {
  const firstBad = Math.min(...badEntries);
  return (length) => length < firstBad;
}

export interface SearchTrace {
  outcome: BisectionOutcome;
  /** Every prefix length started, in start order. */
  started: number[];
  /** Batches of completions: with `inRounds`, every probe in flight finishes in each round. */
  rounds: number;
  maxInFlight: number;
}

/**
 * Runs a bisection to its end against an oracle, the way the planner would: start what nextProbes
 * says, let runs finish, ask again. `pickFinishing` chooses which run in flight finishes next
 * (by index into the in-flight list, modulo its length); without it every run in flight finishes
 * together, one round at a time. Fails if the search does not end within `n + 2` steps' worth of
 * starts, which a search that never repeats a length cannot exceed.
 */
export function runSearch(
  n: number,
  concurrency: number,
  options: BisectionOptions,
  oracle: Oracle,
  pickFinishing?: readonly number[],
): SearchTrace {
  const known = new Map<number, ProbeResult>();
  const started: number[] = [];
  let rounds = 0;
  let maxInFlight = 0;
  let picks = 0;
  for (let step = 0; step <= 2 * (n + 2); step++) {
    for (const length of nextProbes(n, known, concurrency, options)) {
      if (known.has(length)) throw new Error(`prefix ${length} started twice`);
      known.set(length, 'pending');
      started.push(length);
    }
    const inFlight = [...known].filter(([, r]) => r === 'pending').map(([length]) => length);
    maxInFlight = Math.max(maxInFlight, inFlight.length);
    if (inFlight.length === 0) return { outcome: bisectionOutcome(n, known, options), started, rounds, maxInFlight };
    const finishing =
      pickFinishing === undefined ? inFlight : [inFlight[(pickFinishing[picks++] ?? 0) % inFlight.length]!];
    for (const length of finishing) known.set(length, oracle(length) ? 'passed' : 'failed');
    rounds++;
  }
  throw new Error(`bisection of ${n} entries did not end`);
}

/** The smallest r with base^r >= n: ceil(log_base(n)) without floating point. */
export function ceilLog(base: number, n: number): number {
  let r = 0;
  for (let reach = 1; reach < n; reach *= base) r++;
  return r;
}

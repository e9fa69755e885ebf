/**
 * What the results of prefix runs tell about a failing batch of n entries. Prefix i is the target
 * head plus the batch's first i entries: exactly what would land if entries 1..i merged.
 */

export type ProbeResult = 'passed' | 'failed' | 'pending';
export type FinishedProbeResult = Exclude<ProbeResult, 'pending'>;

/** Results by prefix length (1..n). */
export type PrefixResults = ReadonlyMap<number, ProbeResult>;

export interface BisectionOptions {
  /**
   * `optimizationMode = bisection_skip_redundant_tests`: never run a prefix whose result is already
   * known. The full batch then counts as failed (its own run failed), and `sameBaseResults` are used.
   * Without it, the bisection trusts only its own runs: if every shorter prefix passes it reruns the
   * full batch, and earlier runs of the same content are not reused.
   */
  skipRedundant: boolean;
  /**
   * Finished results of earlier runs on the same base whose content equals a prefix of this batch,
   * by prefix length. Used only with `skipRedundant`; this bisection's own results take precedence.
   */
  sameBaseResults?: ReadonlyMap<number, FinishedProbeResult>;
}

export type BisectionOutcome =
  /** Prefix `index` failed and prefix `index - 1` passed (or `index` is 1). */
  | { kind: 'culprit'; index: number }
  /**
   * Every prefix up to the full batch passed: the batch's own failure was a flake and the passing
   * full-length prefix proves all n entries. Only possible without `skipRedundant`.
   */
  | { kind: 'all_passed' }
  /**
   * Not decided: the first culprit lies in (longestPassing, shortestFailing]; a shortestFailing of
   * n + 1 means no prefix is known to fail yet (the full batch is still to be rerun).
   */
  | { kind: 'searching'; longestPassing: number; shortestFailing: number };

export interface Evidence {
  outcome: BisectionOutcome;
  /** The lengths of this bisection's own runs in flight. */
  pending: number[];
}

/**
 * A pass is trusted over a failure: a passing prefix proves all its entries together (as a passing
 * run proves the units it contains, rule 3), so failures of shorter prefixes are taken as flakes.
 * Flaky tests fail runs that should pass far more often than the reverse.
 */
export function evaluate(n: number, known: PrefixResults, options: BisectionOptions): Evidence {
  checkSize(n);
  const results = new Map<number, ProbeResult>();
  if (options.skipRedundant) {
    for (const [length, result] of options.sameBaseResults ?? []) {
      checkLength(n, length, 'sameBaseResults');
      results.set(length, result);
    }
  }
  // A single entry needs no bisection: the batch's failure is its own.
  if (options.skipRedundant || n === 1) results.set(n, 'failed');
  const pending: number[] = [];
  for (const [length, result] of known) {
    checkLength(n, length, 'known');
    results.set(length, result);
    if (result === 'pending') pending.push(length);
  }
  pending.sort((a, b) => a - b);

  let longestPassing = 0;
  for (const [length, result] of results) {
    if (result === 'passed' && length > longestPassing) longestPassing = length;
  }
  let shortestFailing = n + 1;
  for (const [length, result] of results) {
    if (result === 'failed' && length > longestPassing && length < shortestFailing) shortestFailing = length;
  }

  if (longestPassing === n) return { outcome: { kind: 'all_passed' }, pending };
  if (shortestFailing === longestPassing + 1) return { outcome: { kind: 'culprit', index: shortestFailing }, pending };
  return { outcome: { kind: 'searching', longestPassing, shortestFailing }, pending };
}

function checkSize(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`batch size must be a positive integer, got ${n}`);
}

function checkLength(n: number, length: number, source: string): void {
  if (!Number.isInteger(length) || length < 1 || length > n) {
    throw new RangeError(`${source}: prefix length ${length} is outside 1..${n}`);
  }
}

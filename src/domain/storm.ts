/**
 * Storms (docs/queue-rules.md, "Storms"): `stormRuns` runs ended within `stormMinutes` and nothing
 * merged meanwhile. The planner keeps a small ledger of the runs that ended since the target branch
 * last moved (finished runs leave the document for the archive soon after), and the storm in force,
 * so that its start and end are each said once.
 */

/** A run that ended with a CI verdict, as the storm ledger keeps it. */
export interface StormRunEnd {
  runId: string;
  at: string;
  status: 'passed' | 'failed' | 'timed_out';
  /** The PRs the run decided (its unit), not those it was built on. */
  prNumbers: number[];
  /** Failing required checks that only errored (a CI error, no test failing); empty otherwise. */
  erroredChecks: string[];
  /** Failed tests known flaky or quarantined. */
  flakyTests: string[];
}

export interface StormWatch {
  /** The target head when last looked at: a change means something merged (or was pushed). */
  targetSha: string | null;
  /** When the planner saw it move last (null: not since the ledger was started); restart budgets count from it. */
  movedAt?: string | null;
  /** Runs that ended since then, within the window, oldest first (at most MAX_LEDGER_RUNS). */
  ends: StormRunEnd[];
}

/** What the storm is blamed on, from the runs of the window. */
export interface StormCause {
  /** The PR whose runs failed most often; null when no run failed. */
  prNumber: number | null;
  /** How many runs of the window it failed. */
  prFailures: number;
  /** Known flaky or quarantined tests that failed in the window's runs (the first 10). */
  flakyTests: string[];
  /** Runs of the window that ended in a CI error, and the checks that errored. */
  ciErrors: number;
  erroredChecks: string[];
}

export interface QueueStorm {
  since: string;
  /** Runs that ended within the window with nothing merged. */
  runs: number;
  /** The window: `stormMinutes`. */
  minutes: number;
  cause: StormCause;
  /** One line for a person, naming the cause. */
  message: string;
}

const MAX_FLAKY_NAMED = 10;

/**
 * When the storm in force would end if no other run ended: once its ledger holds fewer than
 * `settings.runs` runs within the window (epoch ms), or null when no storm can end that way.
 */
export function stormEndsAt(ends: readonly StormRunEnd[], settings: { runs: number; minutes: number }): number | null {
  const first = ends.length - settings.runs;
  if (first < 0) return null;
  return Date.parse(ends[first]!.at) + settings.minutes * 60_000 + 1;
}

/** The storm the ledger shows now, or null; `since` kept from the storm already in force. */
export function stormOf(ends: readonly StormRunEnd[], settings: { runs: number; minutes: number }, since: string | null, nowIso: string): QueueStorm | null {
  if (ends.length < settings.runs) return null;
  const cause = causeOf(ends);
  return { since: since ?? nowIso, runs: ends.length, minutes: settings.minutes, cause, message: stormMessage(ends.length, settings.minutes, cause) };
}

function causeOf(ends: readonly StormRunEnd[]): StormCause {
  const failures = new Map<number, number>();
  const flaky = new Set<string>();
  const errored = new Set<string>();
  let ciErrors = 0;
  for (const e of ends) {
    if (e.erroredChecks.length > 0) {
      ciErrors++;
      for (const c of e.erroredChecks) errored.add(c);
    } else if (e.status !== 'passed') {
      for (const n of e.prNumbers) failures.set(n, (failures.get(n) ?? 0) + 1);
    }
    for (const t of e.flakyTests) flaky.add(t);
  }
  let prNumber: number | null = null;
  let prFailures = 0;
  for (const [n, count] of failures) {
    if (count > prFailures || (count === prFailures && prNumber !== null && n < prNumber)) {
      prNumber = n;
      prFailures = count;
    }
  }
  return { prNumber, prFailures, flakyTests: [...flaky].slice(0, MAX_FLAKY_NAMED), ciErrors, erroredChecks: [...errored] };
}

function stormMessage(runs: number, minutes: number, cause: StormCause): string {
  const parts = [`storm: ${runs} runs ended in ${minutes} minutes and nothing merged`];
  if (cause.prNumber !== null) parts.push(`#${cause.prNumber} failed ${cause.prFailures} of them`);
  if (cause.flakyTests.length > 0) parts.push(`flaky tests: ${cause.flakyTests.slice(0, 3).join(', ')}${cause.flakyTests.length > 3 ? ` and ${cause.flakyTests.length - 3} more` : ''}`);
  if (cause.ciErrors > 0) parts.push(`${cause.ciErrors} CI error(s) (${cause.erroredChecks.join(', ')})`);
  if (parts.length === 1) parts.push('no run failed: the runs keep being restarted');
  return parts.join('; ');
}

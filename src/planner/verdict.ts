import type { TestRun } from '../domain/run.js';

export type Verdict = 'passed' | 'failed' | 'timed_out';

/**
 * A run's verdict from its status checks: failed as soon as a required check failed or errored;
 * passed when every required check succeeded; timed out after `timeoutMinutes` without either.
 * A required check never reported keeps it pending until the timeout. With no required checks at
 * all (none configured, none in branch protection) it needs at least one reported check and every
 * reported check to have succeeded: an untested branch never passes.
 */
export function verdictOf(run: TestRun, timeoutMinutes: number, now: Date): Verdict | null {
  if (run.status === 'pending') {
    const byContext = new Map(run.statusChecks.map((c) => [c.context, c.state]));
    if (run.requiredStatuses.length > 0) {
      if (run.requiredStatuses.some((c) => isFailure(byContext.get(c)))) return 'failed';
      if (run.requiredStatuses.every((c) => byContext.get(c) === 'success')) return 'passed';
    } else if (run.statusChecks.length > 0) {
      if (run.statusChecks.some((c) => isFailure(c.state))) return 'failed';
      if (run.statusChecks.every((c) => c.state === 'success')) return 'passed';
    }
  }
  if (now.getTime() - Date.parse(run.createdAt) >= timeoutMinutes * 60_000) return 'timed_out';
  return null;
}

/** The checks that made the run fail, for the reason message. */
export function failingChecks(run: TestRun): string[] {
  const required = new Set(run.requiredStatuses);
  return run.statusChecks
    .filter((c) => isFailure(c.state) && (required.size === 0 || required.has(c.context)))
    .map((c) => c.context);
}

function isFailure(state: string | undefined): boolean {
  return state === 'failure' || state === 'error';
}

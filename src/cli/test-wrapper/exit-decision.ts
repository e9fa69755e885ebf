import type { UploadOutcome } from './upload-client.js';

/** sysexits EX_SOFTWARE-adjacent: the wrapper's own "the service refused the token" code. */
export const EXIT_DENIED = 70;

export type ResultsState = { kind: 'none' } | { kind: 'uploaded'; outcome: UploadOutcome } | { kind: 'unreadable'; detail: string };

export interface ExitDecision {
  code: number;
  /** Why, for stderr; null when the command's own result stands without comment. */
  message: string | null;
}

/**
 * The fail-safe rules of flaky-tests.md: exit 0 only when the command failed and every failed test is
 * quarantined — `quarantinedFailures` counts only tests quarantined before this upload, so a run never
 * forgives its own new failure; otherwise the command's own code — except a refused token (70) when the command
 * failed. A passing command always passes.
 */
export function decideExit(commandCode: number, results: ResultsState): ExitDecision {
  const failedRun = commandCode !== 0;
  if (results.kind === 'none') {
    return failedRun
      ? { code: commandCode, message: `the command failed (exit code ${commandCode}) and wrote no fresh JUnit report: keeping its exit code` }
      : { code: 0, message: null };
  }
  if (results.kind === 'unreadable') {
    return { code: commandCode, message: `could not read the JUnit reports (${results.detail}): keeping the command's exit code ${commandCode}` };
  }
  const { outcome } = results;
  switch (outcome.kind) {
    case 'denied': {
      // 403: the token is good, but its organization does not own the repository's owner.
      const why =
        outcome.status === 403
          ? `the service refused the results for this repository (${outcome.detail}): MERGEQ_TOKEN belongs to an organization that does not own it; use a token of the organization that owns it, or check --repo`
          : `the service refused the token (${outcome.detail}); check MERGEQ_TOKEN`;
      return failedRun ? { code: EXIT_DENIED, message: why } : { code: 0, message: `warning: ${why}; results not uploaded` };
    }
    case 'unavailable':
      return { code: commandCode, message: `the mergeq service is unavailable (${outcome.detail}): keeping the command's exit code ${commandCode}` };
    case 'rejected':
      return { code: commandCode, message: `the mergeq service refused the results (${outcome.detail}): keeping the command's exit code ${commandCode}` };
    case 'ok': {
      const { failed, quarantinedFailures } = outcome.answer;
      if (!failedRun) return { code: 0, message: null };
      if (failed > 0 && quarantinedFailures === failed) {
        return { code: 0, message: `every failed test (${failed}) is quarantined: exit code 0 instead of ${commandCode}` };
      }
      if (failed === 0) return { code: commandCode, message: `the command failed (exit code ${commandCode}) but no test failed in its reports: keeping its exit code` };
      return { code: commandCode, message: null };
    }
  }
}

import { reason, type Reason } from '../domain/reasons.js';
import type { TestRun } from '../domain/run.js';
import type { Draft } from './draft.js';
import { nameTests } from './test-results.js';
import { failingChecks } from './verdict.js';

/** Why a run failed, in words a PR author can act on. */
export function describeFailure(d: Draft, run: TestRun): { code: 'tests_failed' | 'test_timeout' | 'merge_conflict'; text: string } {
  if (run.conflictEntryId) {
    const e = d.entry(run.conflictEntryId);
    const who = e ? `#${e.prNumber}` : 'a pull request';
    return { code: 'merge_conflict', text: `the test branch could not be built: ${who} conflicts with the target branch or the pull requests before it` };
  }
  if (run.status === 'timed_out') {
    return { code: 'test_timeout', text: `no verdict within ${d.settings.testingTimeoutMinutes} minutes` };
  }
  const checks = failingChecks(run);
  const text = checks.length > 0 ? `failing checks: ${checks.join(', ')}` : 'required checks failed';
  const tests = run.testResults?.failedTests ?? [];
  return { code: 'tests_failed', text: tests.length > 0 ? `${text}; failed tests: ${nameTests(tests)}` : text };
}

export function failureReason(d: Draft, run: TestRun, prefix = ''): Reason {
  const f = describeFailure(d, run);
  return reason(f.code, prefix + f.text);
}

import type { TestCaseEvent, TestResult } from '../../domain/flaky.js';
import type { TestCase } from '../../domain/quarantine.js';

const RECENT_RESULTS_SHOWN = 50;

/** A test case as getTestCase (and setQuarantineSetting) answer it: the case, its status history and its latest results, newest first. */
export function toTestCaseRecord(tc: TestCase, history: readonly TestCaseEvent[], results: readonly TestResult[]) {
  return {
    test_case_id: tc.testCaseId,
    name: tc.name,
    parent: tc.parent,
    file: tc.file,
    classname: tc.classname,
    variant: tc.variant,
    codeowners: tc.codeowners,
    status: tc.status,
    status_last_updated_at: tc.statusLastUpdatedAt,
    quarantine_setting: tc.quarantineSetting,
    quarantined: tc.quarantinedAt !== null,
    quarantined_at: tc.quarantinedAt,
    history: history.map(({ repoKey: _r, testCaseId: _t, ...event }) => event),
    recentResults: results
      .slice(-RECENT_RESULTS_SHOWN)
      .reverse()
      .map(({ repoKey: _r, testCaseId: _t, ...result }) => result),
  };
}

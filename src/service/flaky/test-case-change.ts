import type { TestCaseEvent } from '../../domain/flaky.js';
import type { TestCase } from '../../domain/quarantine.js';
import { LOST, retryOnConflict, type TestCaseStore } from '../../store/store.js';

export interface TestCaseDecision {
  testCase: TestCase;
  events: TestCaseEvent[];
  changed: boolean;
}

/**
 * Changes one test case with a compare-and-set on it as read: when another writer (another replica's
 * upload, a person) changed it first, it is read again and `decide` runs on what is stored now.
 * Decides first on `read` when given (read already by the caller). Null when the test case is gone.
 */
export function changeTestCase(
  tests: Pick<TestCaseStore, 'getTestCase' | 'updateTestCase'>,
  ref: { repoKey: string; testCaseId: string; orgId: string },
  decide: (current: TestCase) => Promise<TestCaseDecision>,
  read?: TestCase,
): Promise<TestCase | null> {
  let given = read;
  return retryOnConflict(`test case ${ref.testCaseId}`, async () => {
    const current = given ?? (await tests.getTestCase(ref.repoKey, ref.testCaseId));
    given = undefined;
    if (!current) return null;
    const decision = await decide(current);
    if (!decision.changed) return decision.testCase;
    return (await tests.updateTestCase(current, decision.testCase, decision.events, ref.orgId)) ? decision.testCase : LOST;
  });
}

import type { QueueDoc } from '../domain/queue.js';
import { isInFlight, TEST_BRANCH_PREFIX, testBranchName, type TestRun } from '../domain/run.js';

/**
 * The queue's reused test branches (github.md, "Test branches"): `mergeq/<target>/1`, `/2`, … — as
 * many as runs are in flight at once, each moved to the next run's commit when its run has ended, so
 * a run costs one ref write and nothing to delete. A slot is free when no other live run holds it.
 */
export function freeTestBranchSlot(doc: QueueDoc, run: TestRun): string {
  const held = new Set(doc.runs.filter((r) => r.id !== run.id && isInFlight(r)).map((r) => r.testBranch));
  for (let n = 1; ; n++) {
    const name = `${TEST_BRANCH_PREFIX}${doc.branch}/${n}`;
    if (!held.has(name)) return name;
  }
}

/** Whether the run's branch is one of the reused ones (never deleted), not a branch of its own. */
export function onReusedTestBranch(doc: QueueDoc, run: TestRun): boolean {
  return run.testBranch !== testBranchName(doc.branch, run.id);
}

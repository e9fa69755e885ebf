/** A test run: one CI run of one test branch (target head + an ordered list of PRs). */
export const RUN_KINDS = ['main', 'bisection'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * `creating` is written before the test branch exists, so that a crash between the two is finished
 * by the next reconcile (branch names derive from the run id, so creating twice is harmless).
 */
export const RUN_STATUSES = ['creating', 'pending', 'passed', 'failed', 'timed_out', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type PublicRunStatus = Exclude<RunStatus, 'creating'>;

/** Written (`creating`) or running (`pending`): its verdict is still to come. */
export function isInFlight(run: { status: RunStatus }): boolean {
  return run.status === 'creating' || run.status === 'pending';
}

export const CHECK_STATES = ['pending', 'success', 'failure', 'error'] as const;
export type CheckState = (typeof CHECK_STATES)[number];

export interface StatusCheck {
  context: string;
  state: CheckState;
  url: string | null;
}

/** A test that failed in a run, with what the flaky-test detector knew of it when its results came. */
export interface FailedTest {
  testCaseId: string;
  name: string;
  knownFlaky: boolean;
  quarantined: boolean;
  /** The first line of its failure message in the JUnit report; absent when it gave none. */
  firstFailureLine?: string;
}

/**
 * Failed tests a run keeps listed (docs/storage.md): with names of up to 1,000 characters the list
 * stays near 3 MiB at most, so a run row fits a MongoDB document (16 MiB) and a queue page (8 MiB).
 */
export const MAX_FAILED_TESTS_KEPT = 1000;

/** The uploaded test results of a run's test branch head (every upload to that commit so far). */
export interface RunTestResults {
  /** At most MAX_FAILED_TESTS_KEPT, those not known flaky first. */
  failedTests: FailedTest[];
  /** Failed tests beyond those listed (absent: none). */
  moreFailedTests?: number;
  receivedAt: string;
}

export interface RunPr {
  entryId: string;
  prNumber: number;
  prSha: string;
  prTitle: string;
  /** `owner/branch` of the PR's head, for the test branch's merge commit message. */
  prHeadRef?: string;
}

export interface TestRun {
  id: string;
  queueId: string;
  kind: RunKind;
  status: RunStatus;
  /** The unit this run decides. */
  unitId: string;
  /** Everything on the test branch, in merge order: dependencies first, then the unit's own PRs. */
  prs: RunPr[];
  /** Entry ids of the PRs ahead that this run was built on (a prefix of `prs`). */
  dependencyEntryIds: string[];
  /** 0 for the first run of this content, 1.. for flake reruns of identical content. */
  attempt: number;
  testBranch: string;
  testBranchSha: string | null;
  baseSha: string | null;
  /**
   * The commit the test branch was built from (the target head, or an earlier run's commit); absent
   * when not known (older records, a branch adopted after a crash). A fast-forward follows these.
   */
  startSha?: string | null;
  createdAt: string;
  finishedAt: string | null;
  requiredStatuses: string[];
  requiredStatusesSource: 'queue' | 'branch_protection';
  statusChecks: StatusCheck[];
  /** Set when the branch could not be built: the PR whose merge conflicted. */
  conflictEntryId: string | null;
  cancelReason: string | null;
  /** The test branch was deleted after the run ended. */
  cleanedUp: boolean;
  /** Absent until test results are uploaded for `testBranchSha`. */
  testResults?: RunTestResults;
}

/** Every test branch's name starts with it; pushes and check suites there are the queue's own. */
export const TEST_BRANCH_PREFIX = 'mergeq/';

export function testBranchName(targetBranch: string, runId: string): string {
  return `${TEST_BRANCH_PREFIX}${targetBranch}/${runId}`;
}

import type { CheckState, PublicRunStatus, RunKind, TestRun } from '../domain/run.js';

/** A test run as getMergeQueueTestingDetails answers it (api.md, "TestRun"). */
export interface TestRunRecord {
  id: string;
  kind: RunKind;
  status: PublicRunStatus;
  testBranch: string;
  testBranchSha: string | null;
  baseSha: string | null;
  createdAt: string;
  finishedAt: string | null;
  requiredStatuses: string[];
  requiredStatusesSource: 'queue' | 'branch_protection';
  statusChecks: { context: string; state: CheckState; url: string | null }[];
  /** Everything on the test branch, in merge order. */
  testedPullRequests: { prNumber: number; prSha: string; prTitle: string }[];
  /** The PRs ahead that the run was built on. */
  dependentPrs: number[];
  /** The tests that failed on its test branch head, from uploaded results; null until some arrive. */
  failedTests: { testCaseId: string; name: string; knownFlaky: boolean; quarantined: boolean }[] | null;
}

export function toTestRunRecord(run: TestRun): TestRunRecord {
  const numberOfEntry = new Map(run.prs.map((p) => [p.entryId, p.prNumber]));
  return {
    id: run.id,
    kind: run.kind,
    // A run being created is, to a client, a run waiting for its result.
    status: run.status === 'creating' ? 'pending' : run.status,
    testBranch: run.testBranch,
    testBranchSha: run.testBranchSha,
    baseSha: run.baseSha,
    createdAt: run.createdAt,
    finishedAt: run.finishedAt,
    requiredStatuses: [...run.requiredStatuses],
    requiredStatusesSource: run.requiredStatusesSource,
    statusChecks: run.statusChecks.map((c) => ({ context: c.context, state: c.state, url: c.url })),
    testedPullRequests: run.prs.map((p) => ({ prNumber: p.prNumber, prSha: p.prSha, prTitle: p.prTitle })),
    dependentPrs: run.dependencyEntryIds.flatMap((id) => {
      const n = numberOfEntry.get(id);
      return n === undefined ? [] : [n];
    }),
    failedTests: run.testResults ? run.testResults.failedTests.map((t) => ({ ...t })) : null,
  };
}

import type { Entry } from '../domain/entry.js';
import type { CheckState, PublicRunStatus, RunKind, TestRun } from '../domain/run.js';
import { runIdsOf } from '../domain/verdict/attach.js';
import type { VerdictCode } from '../domain/verdict/verdict.js';

/** A verdict that names the run as evidence: who it blamed or spared (docs/verdicts.md). */
export interface RunVerdictRecord {
  prNumber: number;
  code: VerdictCode;
  message: string;
}

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
  /** The verdicts of the PRs it tested that name it as evidence, in merge order. */
  verdicts: RunVerdictRecord[];
}

/**
 * `entries`: the entries of the PRs it tested, as far as they are known (the queue document's, then
 * the archive's); a verdict of one of them that names this run is listed.
 */
export function toTestRunRecord(run: TestRun, entries: ReadonlyMap<string, Entry> = new Map()): TestRunRecord {
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
    failedTests: run.testResults ? run.testResults.failedTests.map((t) => ({ testCaseId: t.testCaseId, name: t.name, knownFlaky: t.knownFlaky, quarantined: t.quarantined })) : null,
    verdicts: run.prs.flatMap((p) => {
      const verdicts = (entries.get(p.entryId)?.history ?? []).flatMap((t) => (t.verdict && runIdsOf(t.verdict).includes(run.id) ? [t.verdict] : []));
      return verdicts.map((v) => ({ prNumber: p.prNumber, code: v.code, message: v.message }));
    }),
  };
}

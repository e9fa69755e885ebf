import type { Entry } from '../../src/domain/entry.js';
import { initialReadiness } from '../../src/domain/entry.js';
import type { Org } from '../../src/domain/org.js';
import { newQueueDoc, type QueueDoc } from '../../src/domain/queue.js';
import { reason } from '../../src/domain/reasons.js';
import type { RepoRef } from '../../src/domain/repo.js';
import type { RunKind, RunStatus, TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';
import type { PrState } from '../../src/domain/states.js';
import type { Archive, Store } from '../../src/store/store.js';

/** Minutes relative to a reference time, as ISO strings: at(base, -30) is half an hour before. */
export function at(base: Date, minutes: number): string {
  return new Date(base.getTime() + minutes * 60_000).toISOString();
}

export function org(id: string, slug: string, owners: string[]): Org {
  return { id, slug, owners, createdAt: '2026-01-01T00:00:00.000Z' };
}

export function queueDoc(id: string, orgId: string, repo: RepoRef, branch: string): QueueDoc {
  return newQueueDoc({ id, orgId, repo, branch, settings: defaultSettings(), at: '2026-01-01T00:00:00.000Z' });
}

let seq = 0;

/** An entry whose history is NOT_READY at `submittedAt` followed by `steps`; its state is the last step's. */
export function entry(id: string, queueId: string, submittedAt: string, steps: [PrState, string][] = []): Entry {
  const history = [{ state: 'NOT_READY' as PrState, at: submittedAt }, ...steps.map(([state, when]) => ({ state, at: when }))].map(
    (t) => ({ ...t, reason: reason('submitted', `moved to ${t.state}`) }),
  );
  const last = history[history.length - 1]!;
  seq += 1;
  return {
    id,
    queueId,
    seq,
    prNumber: seq,
    prTitle: `PR ${id}`,
    prSha: `sha-${id}`,
    prBaseBranch: 'main',
    prAuthor: 'octocat',
    state: last.state,
    stateChangedAt: last.at,
    submittedAt,
    readyAt: null,
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    readiness: initialReadiness(),
    reason: last.reason,
    testRunId: null,
    retriesUsed: 0,
    mergeIntent: null,
    mergeCommitSha: null,
    history,
  };
}

export function run(id: string, queueId: string, kind: RunKind, status: RunStatus, createdAt: string, finishedAt: string | null): TestRun {
  return {
    id,
    queueId,
    kind,
    status,
    unitId: `unit-${id}`,
    prs: [],
    dependencyEntryIds: [],
    attempt: 0,
    testBranch: `mergeq/main/${id}`,
    testBranchSha: null,
    baseSha: null,
    createdAt,
    finishedAt,
    requiredStatuses: [],
    requiredStatusesSource: 'branch_protection',
    statusChecks: [],
    conflictEntryId: null,
    cancelReason: null,
    cleanedUp: false,
  };
}

/** Stores a queue document holding `live` entries and runs, with `archive` moved out by a commit. */
export async function storeQueue(
  store: Store,
  doc: QueueDoc,
  live: { entries?: Entry[]; runs?: TestRun[] },
  archive: Archive = {},
): Promise<void> {
  await store.queues.insertQueue(doc);
  const committed = { ...doc, entries: live.entries ?? [], runs: live.runs ?? [], version: doc.version + 1 };
  if (!(await store.queues.commitQueue(committed, doc.version, archive))) throw new Error(`commit of queue ${doc.id} conflicted`);
}

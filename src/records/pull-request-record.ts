import { activeEntryOf } from '../domain/active-entries.js';
import type { Entry, Readiness } from '../domain/entry.js';
import type { MergeEstimate, MergeRange } from '../domain/eta.js';
import type { EstimateHold } from '../domain/eta-hold.js';
import { positionsOf } from '../domain/position.js';
import { SKIP_THE_LINE_PRIORITY } from '../domain/priority.js';
import type { QueueDoc } from '../domain/queue.js';
import type { Reason } from '../domain/reasons.js';
import { isActive, type PrState } from '../domain/states.js';
import { latestVerdict } from '../domain/verdict/attach.js';
import type { Verdict } from '../domain/verdict/verdict.js';
import { toStackRecord, type StackRecord } from './stack-record.js';

/** Seed 2.4 plus `state`, `position` and `reason`: one element of the queue record's enqueuedPullRequests. */
export interface EnqueuedPullRequestRecord {
  id: string;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  state: PrState;
  stateChangedAt: string;
  /** 1-based place in queue order; null while the PR is not ready. */
  position: number | null;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string | null;
  skipTheLine: boolean;
  noBatch: boolean;
  /** When it should merge (src/domain/eta.ts); null when it is not in the queue or cannot be estimated. */
  estimatedMergeAt: string | null;
  /** Where the merge should fall, 80% of the time; null exactly when `estimatedMergeAt` is. */
  estimatedMergeRange: MergeRange | null;
  /** Why there is no estimate (paused, not ready, no CI history yet); null when there is one or it ended. */
  estimateReason: MergeEstimate['reason'];
  /** Why the PR is in its state (waiting for what, tested how, failed why); null before anything happened to it. */
  reason: Reason | null;
  /** What keeps it NOT_READY, as the git host says it ("no git host is configured", "the pull request is closed"); null when nothing does. */
  readinessNote: string | null;
  /** The freeze or closed merge windows keeping it from merging now ("frozen until …: reason"), and their end; null when none does. */
  mergeHold: EstimateHold | null;
  /** Who broke what: the newest verdict of a removal or restart (docs/verdicts.md); null while there was none. */
  verdict: Verdict | null;
  /** The stack it is queued with (docs/stacks.md); null when it stands alone. */
  stack: StackRecord | null;
}

/** Readiness as clients see it; the direct-merge bookkeeping stays internal. */
export type ReadinessRecord = Omit<Readiness, 'containsTargetSha' | 'ownChecksPassedSha'>;

/** The submitted-PR record of api.md (getSubmittedPullRequest, submit, cancel, restart). */
export interface SubmittedPullRequestRecord extends EnqueuedPullRequestRecord {
  isCurrentlySubmittedToQueue: boolean;
  readiness: ReadinessRecord;
  testRunId: string | null;
  history: { state: PrState; at: string; reason: Reason; verdict: Verdict | null }[];
}

/** A reason as clients see it: its code and message, nothing the entry keeps beside them. */
export function toReasonRecord(reason: Reason): Reason {
  return { code: reason.code, message: reason.message };
}

function stackOf(entry: Entry, queue: QueueDoc | null): StackRecord | null {
  const place = entry.stack;
  if (!place) return null;
  const members = queue
    ? queue.entries
        .filter((e) => e.stack?.id === place.id && (isActive(e.state) || e.id === entry.id))
        .sort((a, b) => a.stack!.position - b.stack!.position)
        .map((e) => e.prNumber)
    : null;
  return toStackRecord(place, members);
}

export function toEnqueuedPullRequestRecord(
  entry: Entry,
  position: number | null,
  estimate: MergeEstimate | undefined,
  queue: QueueDoc | null = null,
): EnqueuedPullRequestRecord {
  return {
    id: entry.id,
    prNumber: entry.prNumber,
    prTitle: entry.prTitle,
    prSha: entry.prSha,
    prBaseBranch: entry.prBaseBranch,
    prAuthor: entry.prAuthor,
    state: entry.state,
    stateChangedAt: entry.stateChangedAt,
    position,
    priorityValue: entry.priorityValue,
    priorityName: entry.priorityName,
    usedDefaultPriorityName: entry.usedDefaultPriorityName,
    skipTheLine: entry.priorityValue === SKIP_THE_LINE_PRIORITY,
    noBatch: entry.noBatch,
    estimatedMergeAt: estimate?.estimatedMergeAt ?? null,
    estimatedMergeRange: estimate?.estimatedMergeRange ?? null,
    estimateReason: estimate?.reason ?? null,
    reason: entry.reason ? toReasonRecord(entry.reason) : null,
    readinessNote: entry.readiness.note,
    mergeHold: estimate?.hold ? { ...estimate.hold } : null,
    verdict: latestVerdict(entry),
    stack: stackOf(entry, queue),
  };
}

/**
 * `queue` is the document the entry was read from, or null for an archived entry. An entry is
 * currently submitted while it is active in the queue document.
 */
export function toSubmittedPullRequestRecord(entry: Entry, queue: QueueDoc | null, estimates?: ReadonlyMap<string, MergeEstimate>): SubmittedPullRequestRecord {
  const inQueue = queue !== null && isActive(entry.state) && activeEntryOf(queue.entries, entry.prNumber)?.id === entry.id;
  const position = inQueue ? (positionsOf(queue).get(entry.id) ?? null) : null;
  const { readiness } = entry;
  return {
    ...toEnqueuedPullRequestRecord(entry, position, inQueue ? estimates?.get(entry.id) : undefined, queue),
    isCurrentlySubmittedToQueue: inQueue,
    readiness: {
      hasImpactedTargets: readiness.hasImpactedTargets,
      requiresImpactedTargets: readiness.requiresImpactedTargets,
      doesBaseBranchMatch: readiness.doesBaseBranchMatch,
      gitHubMergeability: readiness.gitHubMergeability,
      isOpen: readiness.isOpen,
      isDraft: readiness.isDraft,
      note: readiness.note,
    },
    testRunId: entry.testRunId,
    history: entry.history.map((t) => ({ state: t.state, at: t.at, reason: toReasonRecord(t.reason), verdict: t.verdict ?? null })),
  };
}

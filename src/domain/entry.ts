import type { PrState } from './states.js';
import type { Reason } from './reasons.js';
import type { StackKind } from './stack.js';
import type { Verdict } from './verdict/verdict.js';

export const MERGEABILITY = ['MERGEABLE', 'NOT_MERGEABLE', 'IN_PROGRESS', 'UNSPECIFIED'] as const;
export type Mergeability = (typeof MERGEABILITY)[number];

/** What readiness (NOT_READY -> PENDING) depends on; kept current by the engine from the git host. */
export interface Readiness {
  hasImpactedTargets: boolean;
  requiresImpactedTargets: boolean;
  doesBaseBranchMatch: boolean;
  gitHubMergeability: Mergeability;
  isOpen: boolean;
  isDraft: boolean;
  /** Why the git host facts are unknown or negative, e.g. "no git host is configured". */
  note: string | null;
  /**
   * directMergeMode (rule 10), filled by the engine from the git host: the target branch head SHA
   * that the PR head was last seen to contain (PR up to date with it), or null/absent if unknown.
   */
  containsTargetSha?: string | null;
  /** directMergeMode: the PR head SHA on which every required check of the PR itself succeeded. */
  ownChecksPassedSha?: string | null;
}

export interface Transition {
  state: PrState;
  at: string;
  reason: Reason;
  /** Said when the transition removed or restarted the PR (src/domain/verdict/), at the commit that made it. */
  verdict?: Verdict;
}

/** A request to merge, recorded before the git host is asked, so a crash cannot merge twice. */
export interface MergeIntent {
  runId: string | null;
  expectedSha: string;
  requestedAt: string;
}

/** What mergeq says on a PR about its entry, apart from the entry itself. */
export type ReportChannelName = 'status' | 'comment';

/**
 * Why the queue holds an entry back, and what it held against: the hold lifts when the target head or
 * the queue's settings differ from these, or when a person restarts or submits the PR again; a second
 * hold of the same entry (`untilPerson`) lifts only by a person.
 */
export interface EntryHold {
  /** `restart_loop`: the spin guard; `restart_budget`: past its restart budget for `cause`. */
  code: 'restart_loop' | 'restart_budget';
  /** restart_budget: which budget it spent. */
  cause?: 'bystander' | 'infrastructure';
  /** restart_budget as a bystander: the PRs that broke its runs. */
  culpritPrNumbers?: number[];
  message: string;
  since: string;
  targetSha: string | null;
  settingsKey: string;
  untilPerson: boolean;
}

/** An entry's place in its stack: `position` 1 is the bottom, whose base is the queue's branch. */
export interface StackPlace {
  id: string;
  position: number;
  /** How the git host knows the stack (absent: named by a REST caller, landed as a chain). */
  kind?: StackKind;
  /** The member's head branch, which the member above is based on. */
  headRef?: string;
  /** GitHub's stack number, for a native stack (absent: a chain, a stack named by a REST caller, or stored before it was kept). */
  number?: number;
}

/** One submission of one pull request to one queue. */
export interface Entry {
  id: string;
  queueId: string;
  /** Submission sequence within the queue: the last tie-breaker of queue order. */
  seq: number;
  prNumber: number;
  prTitle: string;
  prSha: string;
  prBaseBranch: string;
  prAuthor: string;
  /** `owner/branch` of the PR's head (GitHub), for the merge commit message of its test branch. */
  prHeadRef?: string;
  state: PrState;
  stateChangedAt: string;
  submittedAt: string;
  /** When it last became ready (queue order: priority, then this, then seq); null while NOT_READY. */
  readyAt: string | null;
  priorityValue: number;
  priorityName: string;
  usedDefaultPriorityName: string | null;
  noBatch: boolean;
  readiness: Readiness;
  reason: Reason | null;
  /** The run currently deciding this entry. */
  testRunId: string | null;
  /** Flake reruns used for the current failure. */
  retriesUsed: number;
  mergeIntent: MergeIntent | null;
  mergeCommitSha: string | null;
  history: Transition[];
  /**
   * The queue stopped testing this PR because it kept restarting without a verdict (restart-loop.ts)
   * or spent a restart budget (restart-budget.ts): it waits as NOT_READY until something it depends
   * on changes.
   */
  hold?: EntryHold | null;
  /** The stack of pull requests this entry belongs to, queued, tested and landed as one unit (stacks.md). */
  stack?: StackPlace;
  /** What was last said on the PR per channel (its key), so that nothing is said twice, restarts included. */
  reported?: Partial<Record<ReportChannelName, string>>;
}

export function initialReadiness(): Readiness {
  return {
    hasImpactedTargets: false,
    requiresImpactedTargets: false,
    doesBaseBranchMatch: true,
    gitHubMergeability: 'UNSPECIFIED',
    isOpen: true,
    isDraft: false,
    note: null,
  };
}

/**
 * Whether a submission asks for what the entry already has (priority and `noBatch`, the only things a
 * re-submission changes): submitting it again changes nothing.
 */
export function sameSubmission(a: Entry, b: Entry): boolean {
  return (
    a.priorityValue === b.priorityValue &&
    a.priorityName === b.priorityName &&
    a.usedDefaultPriorityName === b.usedDefaultPriorityName &&
    a.noBatch === b.noBatch &&
    !a.hold === !b.hold &&
    a.stack?.id === b.stack?.id &&
    a.stack?.position === b.stack?.position
  );
}

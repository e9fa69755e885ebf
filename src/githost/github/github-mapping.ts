import type { Mergeability } from '../../domain/entry.js';
import type { CheckState } from '../../domain/run.js';
import type { MergeMethod } from '../../domain/settings.js';
import type { PullRequestInfo } from '../githost.js';

/** The fields of a GitHub pull request that the queue reads (REST response or webhook payload). */
export interface GitHubPull {
  number: number;
  title: string;
  state: string;
  merged?: boolean | null;
  merge_commit_sha: string | null;
  draft?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  head: { sha: string; label?: string | null };
  base: { ref: string };
  user: { login: string } | null;
  /** GitHub's native stacks (public preview): absent or null when the PR is in none. */
  stack?: { number?: number; position?: number; base: { ref: string } } | null;
}

/** GitHub computes `mergeable` lazily: null means it is still being computed. */
export function toMergeability(mergeable: boolean | null, mergeableState: string): Mergeability {
  switch (mergeableState) {
    case 'dirty':
    case 'blocked':
      return 'NOT_MERGEABLE';
    case 'behind':
      // The queue tests the PR on top of the target anyway.
      return 'MERGEABLE';
  }
  if (mergeable === null) return 'IN_PROGRESS';
  return mergeable ? 'MERGEABLE' : 'NOT_MERGEABLE';
}

export function toPullRequestInfo(pr: GitHubPull): PullRequestInfo {
  const state = pr.merged ? 'merged' : pr.state === 'open' ? 'open' : 'closed';
  return {
    number: pr.number,
    title: pr.title,
    // GitHub's label is `owner:branch`; its merge commits say `from owner/branch`.
    ...(pr.head.label ? { headRef: pr.head.label.replace(':', '/') } : {}),
    headSha: pr.head.sha,
    baseBranch: pr.base.ref,
    author: pr.user?.login ?? '',
    state,
    draft: pr.draft ?? false,
    // As on the sandbox host: mergeability only means something for an open PR.
    mergeability: state === 'open' ? toMergeability(pr.mergeable ?? null, pr.mergeable_state ?? '') : 'UNSPECIFIED',
    mergeCommitSha: pr.merged ? pr.merge_commit_sha : null,
    ...(pr.stack?.number !== undefined ? { nativeStack: { number: pr.stack.number, position: pr.stack.position ?? 1, target: pr.stack.base.ref } } : {}),
  };
}

const SUCCESS_CONCLUSIONS = new Set(['success', 'neutral', 'skipped']);

export function checkRunState(status: string, conclusion: string | null): CheckState {
  if (status !== 'completed' || conclusion === null) return 'pending';
  if (SUCCESS_CONCLUSIONS.has(conclusion)) return 'success';
  if (conclusion === 'cancelled') return 'error';
  // failure, timed_out, action_required, startup_failure, stale; an unknown one must not pass either.
  return 'failure';
}

/** Commit status states are already check states; anything else counts as not finished. */
export function commitStatusState(state: string): CheckState {
  return state === 'success' || state === 'failure' || state === 'error' ? state : 'pending';
}

export function toGitHubMergeMethod(method: MergeMethod): 'merge' | 'squash' | 'rebase' {
  return method === 'merge_commit' ? 'merge' : method;
}

/** GitHub's limit on a commit status description. */
export const MAX_STATUS_DESCRIPTION = 140;

export function truncateDescription(description: string): string {
  const chars = [...description];
  if (chars.length <= MAX_STATUS_DESCRIPTION) return description;
  return `${chars.slice(0, MAX_STATUS_DESCRIPTION - 1).join('')}…`;
}

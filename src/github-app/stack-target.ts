import type { Org } from '../domain/org.js';
import type { PullRequestInfo } from '../domain/pull-request.js';
import type { RepoRef } from '../domain/repo.js';
import type { AppDeps } from './app-deps.js';

/** Where a command on a PR acts: the queue's branch, and whether the PR goes with its stack's members below it. */
export interface StackTarget {
  target: string;
  stacked: boolean;
}

/**
 * A natively stacked PR acts in the queue of its stack's base (GitHub's `stack` says which). Otherwise
 * the stack is read only where one may be: an open PR whose base branch has no queue (a chain member
 * above the bottom is based on the member below). A PR on a queue's branch outside any native stack
 * costs no read: queued alone, it joins its chain when a member above it is submitted.
 */
export async function stackTarget(deps: AppDeps, org: Org, repo: RepoRef, pr: PullRequestInfo): Promise<StackTarget> {
  const alone = { target: pr.baseBranch, stacked: false };
  if (pr.state !== 'open') return alone;
  if (pr.nativeStack) return { target: pr.nativeStack.target, stacked: true };
  if (await deps.autoEnqueue.queueOf(org, repo, pr.baseBranch)) return alone;
  const stack = await deps.gitHostEvents.readStack(repo, pr.number);
  return stack ? { target: stack.target, stacked: true } : alone;
}

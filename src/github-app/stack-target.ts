import type { Org } from '../domain/org.js';
import type { PullRequestInfo } from '../domain/pull-request.js';
import type { RepoRef } from '../domain/repo.js';
import type { AppDeps } from './app-deps.js';

/**
 * Where a command on a PR acts: the queue's branch, and whether the PR goes with its stack's members
 * below it. `pr` is the PR as it is now: retargeted when it was based on the head of a merged PR.
 */
export interface StackTarget {
  target: string;
  stacked: boolean;
  pr: PullRequestInfo;
}

/**
 * A natively stacked PR acts in the queue of its stack's base (GitHub's `stack` says which). Otherwise
 * the stack is read only where one may be: an open PR whose base branch has no queue (a chain member
 * above the bottom is based on the member below). A PR on a queue's branch outside any native stack
 * costs no read: queued alone, it joins its chain when a member above it is submitted. A chain (or a
 * PR) based on the head branch of a PR that merged alone is first retargeted onto the branch that PR
 * merged into (one write), as GitHub does only once that branch is deleted.
 */
export async function stackTarget(deps: AppDeps, org: Org, repo: RepoRef, pr: PullRequestInfo): Promise<StackTarget> {
  const alone = { target: pr.baseBranch, stacked: false, pr };
  if (pr.state !== 'open') return alone;
  if (pr.nativeStack) return { target: pr.nativeStack.target, stacked: true, pr };
  const onQueue = async (branch: string) => (await deps.autoEnqueue.queueOf(org, repo, branch)) !== null;
  if (await onQueue(pr.baseBranch)) return alone;
  const stack = await deps.gitHostEvents.readStack(repo, pr.number);
  const below = stack?.target ?? pr.baseBranch;
  const bottom = stack?.members[0]?.number ?? pr.number;
  const landed = (await onQueue(below)) ? null : await deps.gitHostEvents.retargetOntoLandedBase(repo, bottom, below, onQueue);
  const target = landed ?? below;
  return { target, stacked: stack !== null, pr: landed !== null && bottom === pr.number ? { ...pr, baseBranch: landed } : pr };
}

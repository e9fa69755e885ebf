import type { RepoRef } from '../../domain/repo.js';
import type { GitHost } from '../../githost/githost.js';

/** How many merged PRs down a chain a base branch is followed (one read each). */
const MAX_HOPS = 10;

export type MergedBaseHost = Pick<GitHost, 'mergedPullRequestOfBranch' | 'openPullRequestsBasedOn' | 'retargetPullRequest'>;

/**
 * Where a PR based on `base` belongs once the PR whose head `base` is merged alone (and the one below
 * that, …): the branch the last of them merged into, stopping at a queue's branch. Null when `base` is
 * a queue's branch or no merged PR's head. GitHub retargets such PRs only when the merged branch is deleted.
 */
export async function landedBase(host: MergedBaseHost, repo: RepoRef, base: string, isQueueBranch: (branch: string) => Promise<boolean>): Promise<string | null> {
  if (!host.mergedPullRequestOfBranch || !host.retargetPullRequest) return null;
  let branch = base;
  for (let hop = 0; hop < MAX_HOPS && !(await isQueueBranch(branch)); hop++) {
    const merged = await host.mergedPullRequestOfBranch(repo, branch);
    if (!merged || merged.baseBranch === branch) break;
    branch = merged.baseBranch;
  }
  return branch === base ? null : branch;
}

/**
 * PR `prNumber` is based on `base`, the head of PRs merged alone: retargeted (one write) onto where
 * they landed when that is a queue's branch. Answers that branch, or null when nothing changed.
 */
export async function retargetOntoLandedBase(host: MergedBaseHost, repo: RepoRef, prNumber: number, base: string, isQueueBranch: (branch: string) => Promise<boolean>): Promise<string | null> {
  const landed = await landedBase(host, repo, base, isQueueBranch);
  if (landed === null || !(await isQueueBranch(landed))) return null;
  await host.retargetPullRequest!(repo, prNumber, landed);
  return landed;
}

/**
 * A PR merged: the open PRs based on its head branch (the chain members above it, outside native
 * stacks) are retargeted onto the branch it merged into, one write each. Answers their numbers.
 */
export async function retargetAboveMerged(host: MergedBaseHost, repo: RepoRef, headBranch: string, baseBranch: string): Promise<number[]> {
  if (!host.openPullRequestsBasedOn || !host.retargetPullRequest || headBranch === baseBranch) return [];
  const above = await host.openPullRequestsBasedOn(repo, headBranch);
  for (const n of above) await host.retargetPullRequest(repo, n, baseBranch);
  return above;
}

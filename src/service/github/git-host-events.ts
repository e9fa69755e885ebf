import type { PullRequestInfo } from '../../domain/pull-request.js';
import type { RepoRef } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import type { Engine } from '../../engine/engine.js';
import type { GitHost } from '../../githost/githost.js';
import type { PullRequestStack } from '../../domain/stack.js';
import { retargetAboveMerged, retargetOntoLandedBase } from './merged-base.js';

/** The engine's part: it records facts for the queues they concern and reconciles them. */
export type GitHostFactRecorder = Pick<Engine, 'recordStatuses' | 'recordCommitChecks' | 'recordPullRequestInfo' | 'branchMoved' | 'activePullRequests'>;

/**
 * What the git host's own events (the GitHub App's webhooks) tell the queues: CI results, pull
 * request changes and branch moves, handed to the engine, with the reads of the git host they need.
 */
export class GitHostEvents {
  constructor(private readonly deps: { engine: GitHostFactRecorder; gitHost: Pick<GitHost, 'readStatuses' | 'getPullRequest' | 'getStack' | 'mergedPullRequestOfBranch' | 'openPullRequestsBasedOn' | 'retargetPullRequest'> }) {}

  /**
   * Checks reported on a commit (a status or a check run): recorded for the run whose test branch head
   * it is; on the head of a NOT_READY PR they make the queue read that PR again (see
   * `Engine.recordCommitChecks`).
   */
  async commitChecksReported(repo: RepoRef, sha: string, checks: StatusCheck[]): Promise<void> {
    await this.deps.engine.recordCommitChecks(repo, sha, checks);
  }

  /** A test branch's check suite finished: every check of its head is read again, in case a delivery was lost. */
  async testBranchSuiteCompleted(repo: RepoRef, sha: string): Promise<void> {
    await this.deps.engine.recordStatuses(repo, sha, await this.deps.gitHost.readStatuses(repo, sha));
  }

  /** A pull request as the event carries it: the queues holding it record it, and the planner decides. */
  async pullRequestChanged(repo: RepoRef, pr: PullRequestInfo): Promise<void> {
    await this.deps.engine.recordPullRequestInfo(repo, pr);
  }

  /** Something the event does not carry changed (a review): the PR is read afresh and recorded. */
  async pullRequestReread(repo: RepoRef, prNumber: number): Promise<void> {
    const pr = await this.deps.gitHost.getPullRequest(repo, prNumber);
    if (pr) await this.deps.engine.recordPullRequestInfo(repo, pr);
  }

  /**
   * A stack changed on the git host (a PR joined it, or a member was pushed, retargeted or closed):
   * the other open members of the stack `prNumber` belongs to that a queue holds are read afresh and
   * recorded, so those queues see each as it is now. Nothing is read while no queue of the repository
   * holds a PR (a stack of n PRs sends n `stacked` events: reading every member for each would be n²).
   */
  async stackChanged(repo: RepoRef, prNumber: number): Promise<void> {
    const active = await this.deps.engine.activePullRequests(repo);
    if (active.size === 0) return;
    const stack = await this.deps.gitHost.getStack?.(repo, prNumber);
    for (const member of stack?.members ?? []) {
      if (member.number !== prNumber && active.has(member.number)) await this.pullRequestReread(repo, member.number);
    }
  }

  /**
   * A PR merged (on its own, in the queue or elsewhere): the plain-chain members above it, still
   * based on its head branch (GitHub keeps it until someone deletes it), are retargeted onto the branch
   * it merged into, one write each, and the queues holding them or their stack read them again.
   */
  async pullRequestMerged(repo: RepoRef, headBranch: string, baseBranch: string): Promise<number[]> {
    const moved = await retargetAboveMerged(this.deps.gitHost, repo, headBranch, baseBranch);
    const active = moved.length === 0 ? new Set<number>() : await this.deps.engine.activePullRequests(repo);
    for (const n of moved) {
      if (active.has(n)) await this.pullRequestReread(repo, n);
      await this.stackChanged(repo, n);
    }
    return moved;
  }

  /**
   * PR `prNumber`, based on `base` (itself, or the bottom of its chain), is retargeted onto a queue's
   * branch when `base` is the head of a PR that merged alone; answers that branch, or null.
   */
  retargetOntoLandedBase(repo: RepoRef, prNumber: number, base: string, isQueueBranch: (branch: string) => Promise<boolean>): Promise<string | null> {
    return retargetOntoLandedBase(this.deps.gitHost, repo, prNumber, base, isQueueBranch);
  }

  /** A branch moved (a push): the queues targeting it read its head again. */
  async branchMoved(repo: RepoRef, branch: string): Promise<void> {
    await this.deps.engine.branchMoved(repo, branch);
  }

  /** The stack the pull request is in (a command on a member acts in the queue of the stack's target); null: none. */
  async readStack(repo: RepoRef, prNumber: number): Promise<PullRequestStack | null> {
    return (await this.deps.gitHost.getStack?.(repo, prNumber)) ?? null;
  }

  /** The pull request as the git host has it now (a comment command's target branch); null if unknown. */
  readPullRequest(repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null> {
    return this.deps.gitHost.getPullRequest(repo, prNumber);
  }
}

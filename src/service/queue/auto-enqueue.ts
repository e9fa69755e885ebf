import { autoEnqueuesAuthor, enqueueRulesOf, notReadyToEnqueue, sameName } from '../../domain/enqueue-rules.js';
import type { Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import { isActive } from '../../domain/states.js';
import { statusContext } from '../../engine/commit-status.js';
import type { GitHost, PullRequestInfo } from '../../githost/githost.js';
import type { QueueStore } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import { retargetOntoLandedBase } from '../github/merged-base.js';
import { latestEntryOf } from './latest-entry.js';
import type { QueueService } from './queue-service.js';
import { assertOwnsRepo } from '../access/tenancy.js';

/** What auto-enqueue did with a PR, and why (for the log). */
export interface AutoEnqueueOutcome {
  pr: number;
  /** Why it was not submitted; null when it was. */
  notSubmitted: string | null;
}

/**
 * The queue settings that submit PRs without a `/merge` (queue-labels.md): the queue's `enqueueLabel`
 * and `autoEnqueue`. Auto-enqueue submits a PR once it is ready, through the same path as `/merge`,
 * and never a PR a person cancelled, nor the same head again after its entry ended (a PR that failed
 * is not retried until new commits come). Reads of GitHub only, until it submits.
 */
export class AutoEnqueue {
  constructor(private readonly deps: { store: { queues: QueueStore }; gitHost: GitHost; queueService: QueueService }) {}

  /** The queue of `branch` in `repo`, if `org` has one. */
  async queueOf(org: Org, repo: RepoRef, branch: string): Promise<QueueDoc | null> {
    assertOwnsRepo(org, repo);
    const queue = await this.deps.store.queues.getQueue(repoKey(repo), branch);
    return queue && queue.orgId === org.id ? queue : null;
  }

  /** Whether a queue of `repo` submits PRs labelled `label` (its `enqueueLabel`). */
  async isEnqueueLabel(org: Org, repo: RepoRef, label: string): Promise<boolean> {
    assertOwnsRepo(org, repo);
    const queues = await this.deps.store.queues.listQueues({ orgId: org.id, repoKey: repoKey(repo) });
    return queues.some((q) => {
      const name = enqueueRulesOf(q.settings).enqueueLabel;
      return name !== null && sameName(name, label);
    });
  }

  /** Whether `org` has a queue in `repo`. */
  async managesRepository(org: Org, repo: RepoRef): Promise<boolean> {
    assertOwnsRepo(org, repo);
    return (await this.deps.store.queues.listQueues({ orgId: org.id, repoKey: repoKey(repo) })).length > 0;
  }

  /**
   * Checks reported on commit `sha`: the open PRs whose head it is are looked at, when a queue of the
   * repository auto-enqueues and one of the checks passed (a failure or a pending check makes nothing ready).
   */
  async checksReported(org: Org, repo: RepoRef, sha: string, checks: readonly StatusCheck[]): Promise<AutoEnqueueOutcome[]> {
    const on = await this.autoEnqueuing(org, repo);
    const own = new Set(on.map((q) => statusContext(q.branch)));
    if (on.length === 0 || !checks.some((c) => c.state === 'success' && !own.has(c.context))) return [];
    const prs = (await this.deps.gitHost.openPullRequestsAt?.(repo, sha)) ?? [];
    const outcomes: AutoEnqueueOutcome[] = [];
    for (const pr of prs) outcomes.push(await this.submitIfReady(org, repo, pr));
    return outcomes;
  }

  /** Submits PR `prNumber` when its queue auto-enqueues it and it is ready. */
  async submitIfReady(org: Org, repo: RepoRef, prNumber: number): Promise<AutoEnqueueOutcome> {
    return { pr: prNumber, notSubmitted: await this.trySubmit(org, repo, prNumber) };
  }

  /** The queues of the repository that auto-enqueue: without one, GitHub is not even asked. */
  private async autoEnqueuing(org: Org, repo: RepoRef): Promise<QueueDoc[]> {
    assertOwnsRepo(org, repo);
    const queues = await this.deps.store.queues.listQueues({ orgId: org.id, repoKey: repoKey(repo) });
    return queues.filter((q) => enqueueRulesOf(q.settings).autoEnqueue.enabled);
  }

  /**
   * The queue's branch a PR goes to, and whether with its stack: a native stack's base; else, off a
   * queue's branch, its chain's target (a member above the bottom is based on the member below). A
   * chain (or PR) based on the head of a PR that merged alone is first retargeted onto where that landed.
   */
  private async targetOf(org: Org, repo: RepoRef, pr: PullRequestInfo): Promise<{ target: string; stacked: boolean }> {
    if (pr.nativeStack) return { target: pr.nativeStack.target, stacked: true };
    const onQueue = async (branch: string) => (await this.queueOf(org, repo, branch)) !== null;
    if (await onQueue(pr.baseBranch)) return { target: pr.baseBranch, stacked: false };
    const stack = (await this.deps.gitHost.getStack?.(repo, pr.number)) ?? null;
    const below = stack?.target ?? pr.baseBranch;
    const landed = (await onQueue(below)) ? null : await retargetOntoLandedBase(this.deps.gitHost, repo, stack?.members[0]?.number ?? pr.number, below, onQueue);
    return { target: landed ?? below, stacked: stack !== null };
  }

  /** Why the PR was not submitted, or null when it was. */
  private async trySubmit(org: Org, repo: RepoRef, prNumber: number): Promise<string | null> {
    const { gitHost, queueService } = this.deps;
    if ((await this.autoEnqueuing(org, repo)).length === 0) return 'no queue of the repository auto-enqueues';
    const pr = await gitHost.getPullRequest(repo, prNumber);
    if (!pr) return 'the git host does not know it';
    // A stack member above the bottom is based on the member below: its queue is its stack's target's.
    const { target, stacked } = await this.targetOf(org, repo, pr);
    const queue = await this.queueOf(org, repo, target);
    if (!queue) return `no queue for ${pr.baseBranch}`;
    if (!autoEnqueuesAuthor(enqueueRulesOf(queue.settings).autoEnqueue, pr.author)) return `the queue does not auto-enqueue PRs of ${pr.author}`;
    if (pr.state !== 'open' || pr.draft) return pr.draft ? 'it is a draft' : `it is ${pr.state}`;
    const earlier = await latestEntryOf(this.deps.store.queues, queue, prNumber);
    if (earlier && isActive(earlier.state)) return 'it is in the queue';
    if (earlier?.state === 'CANCELLED' && earlier.reason?.code === 'cancelled_by_user') return 'a person cancelled it';
    if (earlier?.prSha === pr.headSha) return `its entry for ${pr.headSha} ended ${earlier.state}`;
    const [checks, required] = await Promise.all([gitHost.readStatuses(repo, pr.headSha), gitHost.requiredStatuses(repo, queue.branch)]);
    const why = notReadyToEnqueue(pr, checks, required, statusContext(queue.branch));
    if (why) return why;
    try {
      await queueService.submitPullRequest(org, { repo, targetBranch: queue.branch, pr: { number: prNumber }, ...(stacked ? { stack: { below: true } as const } : {}) });
      return null;
    } catch (err) {
      // Not accepting (draining), say: the next event looks again.
      if (err instanceof ServiceError && err.status < 500) return err.detail ?? err.title;
      throw err;
    }
  }
}

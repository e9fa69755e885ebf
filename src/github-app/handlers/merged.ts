import type { Context } from 'probot';
import { repoOf, type AppDeps } from '../app-deps.js';

/**
 * A PR merged (by the queue or anyone): in a repository with a queue, the PRs based on its head branch
 * — a plain chain's members above it — are retargeted onto the branch it merged into, as GitHub does
 * only once that branch is deleted, so that they can be queued and land one by one (docs/stacks.md).
 * A PR retargeted so is submitted when its queue auto-enqueues and it is ready. A fork's branch is no base of this repository's PRs: nothing to read.
 */
export async function onMerged(deps: AppDeps, context: Context<'pull_request'>): Promise<void> {
  const { action, pull_request: pr, repository } = context.payload;
  if (action !== 'closed' || !pr.merged) return;
  if (pr.head.repo && pr.head.repo.full_name.toLowerCase() !== repository.full_name.toLowerCase()) return;
  const repo = repoOf(deps.host, repository);
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  if (!(await deps.autoEnqueue.managesRepository(org, repo))) return;
  const moved = await deps.gitHostEvents.pullRequestMerged(repo, pr.head.ref, pr.base.ref);
  if (moved.length === 0) return;
  deps.logger.info({ pr: pr.number, retargeted: moved, base: pr.base.ref }, 'retargeted the PRs based on a merged branch');
  // Now on a queue's branch, a PR may be ready for auto-enqueue (nothing is read where no queue auto-enqueues).
  for (const n of moved) await deps.autoEnqueue.submitIfReady(org, repo, n);
}

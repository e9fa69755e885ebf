import type { Context } from 'probot';
import { TEST_BRANCH_PREFIX, type StatusCheck } from '../../domain/run.js';
import { checkRunState, commitStatusState } from '../../githost/github/github-mapping.js';
import type { AutoEnqueueOutcome } from '../../service/queue/auto-enqueue.js';
import { repoOf, type AppDeps } from '../app-deps.js';

/**
 * The events that can make a PR ready for auto-enqueue (queue-labels.md): opened, reopened or out of
 * draft; an approving review; a check passing on its head (a commit status, or a finished check suite).
 */
export async function autoEnqueueOnPullRequest(deps: AppDeps, context: Context<'pull_request'>): Promise<void> {
  const { action, pull_request: pr, repository } = context.payload;
  if (action !== 'opened' && action !== 'reopened' && action !== 'ready_for_review') return;
  await submitIfReady(deps, repository, pr.number);
}

export async function autoEnqueueOnReview(deps: AppDeps, context: Context<'pull_request_review'>): Promise<void> {
  const { action, review, pull_request: pr, repository } = context.payload;
  if (action !== 'submitted' || review.state.toLowerCase() !== 'approved') return;
  await submitIfReady(deps, repository, pr.number);
}

export async function autoEnqueueOnStatus(deps: AppDeps, context: Context<'status'>): Promise<void> {
  const { sha, context: name, state, target_url, branches, repository } = context.payload;
  // Read defensively: a hand-made delivery (the benchmarks' fake GitHub sends them) may leave `branches` out.
  if ((branches as typeof branches | undefined)?.some((b) => b.name.startsWith(TEST_BRANCH_PREFIX))) return;
  await checksReported(deps, repository, sha, [{ context: name, state: commitStatusState(state), url: target_url ?? null }]);
}

export async function autoEnqueueOnCheckSuite(deps: AppDeps, context: Context<'check_suite.completed'>): Promise<void> {
  const { check_suite: suite, repository } = context.payload;
  if (suite.head_branch?.startsWith(TEST_BRANCH_PREFIX)) return;
  await checksReported(deps, repository, suite.head_sha, [{ context: suite.app?.name ?? 'check suite', state: checkRunState(suite.status ?? 'completed', suite.conclusion), url: null }]);
}

async function submitIfReady(deps: AppDeps, repository: { name: string; full_name: string }, prNumber: number): Promise<void> {
  const repo = repoOf(deps.host, repository);
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  log(deps, await deps.autoEnqueue.submitIfReady(org, repo, prNumber));
}

async function checksReported(deps: AppDeps, repository: { name: string; full_name: string }, sha: string, checks: StatusCheck[]): Promise<void> {
  const repo = repoOf(deps.host, repository);
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  for (const outcome of await deps.autoEnqueue.checksReported(org, repo, sha, checks)) log(deps, outcome);
}

function log(deps: AppDeps, { pr, notSubmitted }: AutoEnqueueOutcome): void {
  if (notSubmitted === null) deps.logger.info({ pr }, 'auto-enqueue submitted a pull request');
  else deps.logger.debug({ pr, why: notSubmitted }, 'auto-enqueue left a pull request out');
}

import type { Context } from 'probot';
import { toPullRequestInfo } from '../../githost/github/github-mapping.js';
import { repoOf, type AppDeps } from '../app-deps.js';

/**
 * Pull request events: new commits, closed or merged elsewhere, draft, base changed, reopened. The
 * payload carries the PR as the REST API does; the queues holding it record it and the planner
 * decides (a change of what was approved cancels the entry, `pr_updated`).
 */
export async function onPullRequest(deps: AppDeps, context: Context<'pull_request'>): Promise<void> {
  const { pull_request: pr, repository } = context.payload;
  await deps.gitHostEvents.pullRequestChanged(repoOf(deps.host, repository), toPullRequestInfo(pr));
}

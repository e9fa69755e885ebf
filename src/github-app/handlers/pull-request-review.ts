import type { Context } from 'probot';
import { repoOf, type AppDeps } from '../app-deps.js';

/**
 * Reviews submitted or dismissed: an approval can make a PR mergeable for branch protection (or a
 * dismissal stop it being so). The review payload's PR carries no mergeability, so the PR is read
 * afresh and recorded; the planner decides whether it is ready.
 */
export async function onPullRequestReview(deps: AppDeps, context: Context<'pull_request_review'>): Promise<void> {
  await deps.gitHostEvents.pullRequestReread(repoOf(deps.host, context.payload.repository), context.payload.pull_request.number);
}

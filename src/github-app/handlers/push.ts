import type { Context } from 'probot';
import { TEST_BRANCH_PREFIX } from '../../domain/run.js';
import type { Octokit } from '../../githost/github/github-client.js';
import { repoOf, type AppDeps } from '../app-deps.js';
import { applyRepoConfig, touchesRepoConfig } from '../repo-config-file.js';

/**
 * A push to a branch: the queues targeting it read its head again. Test branch pushes are ours. A
 * push to the default branch that changes `.github/mergeq.yml` applies it.
 */
export async function onPush(deps: AppDeps, context: Context<'push'>): Promise<void> {
  const { ref, deleted, repository, after, commits } = context.payload;
  if (deleted || !ref.startsWith('refs/heads/')) return;
  const branch = ref.slice('refs/heads/'.length);
  if (branch.startsWith(TEST_BRANCH_PREFIX)) return;
  const repo = repoOf(deps.host, repository);
  await deps.gitHostEvents.branchMoved(repo, branch);
  if (branch === repository.default_branch && touchesRepoConfig(commits ?? [])) {
    await applyRepoConfig(deps, context.octokit as unknown as Octokit, repo, after);
  }
}

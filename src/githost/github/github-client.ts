import type { ProbotOctokit } from 'probot';
import type { RepoRef } from '../../domain/repo.js';

/** An installation-authenticated GitHub client. */
export type Octokit = InstanceType<typeof ProbotOctokit>;

/** A repository as the REST API's route parameters name it. */
export function repoParams(repo: RepoRef): { owner: string; repo: string } {
  return { owner: repo.owner, repo: repo.name };
}

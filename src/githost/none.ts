import type { RepoRef } from '../domain/repo.js';
import type { StatusCheck } from '../domain/run.js';
import { NO_GIT_HOST_NOTE, NoGitHostError, type CreateBranchResult, type GitHost, type MergeResult, type PullRequestInfo } from './githost.js';

/**
 * The git host used when no GitHub credentials are configured: the API works, PRs wait as
 * NOT_READY with mergeability UNSPECIFIED, and anything that would touch a repository throws.
 */
export class NoGitHost implements GitHost {
  readonly kind = 'none' as const;
  readonly note = NO_GIT_HOST_NOTE;

  /** Nothing is known about the PR: it exists for the queue, but its mergeability is unspecified. */
  async getPullRequest(_repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null> {
    return {
      number: prNumber,
      title: '',
      headSha: '',
      baseBranch: '',
      author: '',
      state: 'open',
      draft: false,
      mergeability: 'UNSPECIFIED',
      mergeCommitSha: null,
    };
  }

  async getBranchHead(): Promise<string | null> {
    throw new NoGitHostError();
  }

  async requiredStatuses(): Promise<string[]> {
    throw new NoGitHostError();
  }

  async createTestBranch(): Promise<CreateBranchResult> {
    throw new NoGitHostError();
  }

  async deleteBranch(): Promise<void> {
    throw new NoGitHostError();
  }

  async readStatuses(): Promise<StatusCheck[]> {
    throw new NoGitHostError();
  }

  async mergePullRequest(): Promise<MergeResult> {
    throw new NoGitHostError();
  }

  async reportStatus(): Promise<void> {
    throw new NoGitHostError();
  }
}

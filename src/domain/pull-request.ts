import type { Mergeability } from './entry.js';

/** What the git host says about a pull request. */
export interface PullRequestInfo {
  number: number;
  title: string;
  /** `owner/branch` of the PR's head, as GitHub's merge commits name it; absent where the host has none. */
  headRef?: string;
  headSha: string;
  baseBranch: string;
  author: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  mergeability: Mergeability;
  mergeCommitSha: string | null;
}

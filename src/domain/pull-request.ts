import type { Mergeability } from './entry.js';

/** What the git host says about a pull request. */
export interface PullRequestInfo {
  number: number;
  title: string;
  headSha: string;
  baseBranch: string;
  author: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  mergeability: Mergeability;
  mergeCommitSha: string | null;
}

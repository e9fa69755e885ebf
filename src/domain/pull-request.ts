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
  /** The host's native stack the PR is in (GitHub's `stack`): its number, the PR's place (1: bottom), the branch it lands on. */
  nativeStack?: { number: number; position: number; target: string };
}

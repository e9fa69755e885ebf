/**
 * Stacked pull requests, as the git host knows them: GitHub's native stacks (every PR resource
 * carries `stack`), or a plain chain (each PR based on the head branch of the one below, the bottom
 * one on the branch the stack lands on).
 */
export type StackKind = 'native' | 'chain';

export interface StackMemberInfo {
  number: number;
  headSha: string;
  /** The member's head branch (a chain member above it is based on it). */
  headRef: string;
  baseRef: string;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
}

export interface PullRequestStack {
  kind: StackKind;
  /** Stable while the stack exists: `native:<GitHub's stack id>`, or `chain:<bottom PR number>`. */
  id: string;
  /** GitHub's stack number (the Stacks API's), null for a chain. */
  number: number | null;
  /** The branch the whole stack lands on: the bottom member's base. */
  target: string;
  /** The open members, bottom (position 1) to top. */
  members: StackMemberInfo[];
}

/** GitHub's stacks hold at most 100 pull requests; so does a queued stack of either kind. */
export const MAX_STACK_MEMBERS = 100;

import { MAX_STACK_MEMBERS, type PullRequestStack, type StackMemberInfo } from '../../domain/stack.js';
import type { SandboxPullRequest } from './repository.js';

/**
 * The plain chain `prNumber` belongs to among a repository's pull requests: down through the open
 * PRs whose head branch is the base of the one above, to a branch that is no open PR's head (the
 * target), and up while exactly one open PR is based on the top's head branch. Null for a PR alone.
 */
export function chainOf(pulls: Iterable<SandboxPullRequest>, prNumber: number): PullRequestStack | null {
  const open = [...pulls].filter((p) => p.state === 'open');
  const start = open.find((p) => p.number === prNumber);
  if (!start) return null;
  const byHead = new Map(open.map((p) => [p.headBranch, p]));
  const members: SandboxPullRequest[] = [start];
  for (let below = byHead.get(start.baseBranch); below && members.length < MAX_STACK_MEMBERS; below = byHead.get(below.baseBranch)) {
    if (members.includes(below)) break; // a cycle of base branches is no stack
    members.unshift(below);
  }
  for (;;) {
    const above = open.filter((p) => p.baseBranch === members.at(-1)!.headBranch);
    if (above.length !== 1 || members.includes(above[0]!) || members.length >= MAX_STACK_MEMBERS) break;
    members.push(above[0]!);
  }
  if (members.length < 2) return null;
  return {
    kind: 'chain',
    id: `chain:${members[0]!.number}`,
    number: null,
    target: members[0]!.baseBranch,
    members: members.map(memberInfo),
  };
}

function memberInfo(p: SandboxPullRequest): StackMemberInfo {
  return { number: p.number, headSha: p.headSha, headRef: p.headBranch, baseRef: p.baseBranch, state: p.state, draft: p.draft };
}

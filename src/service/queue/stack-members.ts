import type { StackPlace } from '../../domain/entry.js';
import type { RepoRef } from '../../domain/repo.js';
import { MAX_STACK_MEMBERS, type PullRequestStack } from '../../domain/stack.js';
import type { GitHost } from '../../githost/githost.js';
import { invalidRequest } from '../errors.js';

/**
 * How a submission names a stack: `below`, the stack the git host knows the PR to be in (native or a
 * plain chain); `prs`, the stack's PRs bottom to top as the caller lists them.
 */
export type StackRequest = { below: true } | { prs: number[] };

export interface MemberToQueue {
  number: number;
  place: StackPlace | null;
}

/**
 * The PRs a submission queues, bottom up, ending with the named PR: the members of its stack below it
 * and itself (docs/stacks.md), or the PR alone. `target`: the branch the stack lands on, when the git
 * host knows it (a member above the bottom is based on the member below, not on the queue's branch).
 */
export async function membersToQueue(
  gitHost: GitHost,
  repo: RepoRef,
  prNumber: number,
  request: StackRequest | undefined,
): Promise<{ members: MemberToQueue[]; target: string | null }> {
  const alone = { members: [{ number: prNumber, place: null }], target: null };
  if (!request) return alone;
  const known = gitHost.getStack ? await gitHost.getStack(repo, prNumber) : null;
  if ('below' in request) return known ? fromHost(known, prNumber) : alone;
  const prs = request.prs;
  if (!prs.includes(prNumber)) throw invalidRequest('stack.prs', `must list pull request #${prNumber}, the one submitted`);
  if (new Set(prs).size !== prs.length) throw invalidRequest('stack.prs', 'lists a pull request twice');
  if (prs.length > MAX_STACK_MEMBERS) throw invalidRequest('stack.prs', `lists more than ${MAX_STACK_MEMBERS} pull requests`);
  const upTo = prs.slice(0, prs.indexOf(prNumber) + 1);
  if (upTo.length < 2) return alone;
  const heads = new Map(known?.members.map((m) => [m.number, m.headRef]) ?? []);
  const id = `declared:${upTo[0]}`;
  return {
    members: upTo.map((number, i) => ({ number, place: { id, position: i + 1, ...(heads.has(number) ? { headRef: heads.get(number)! } : {}) } })),
    target: null,
  };
}

function fromHost(stack: PullRequestStack, prNumber: number): { members: MemberToQueue[]; target: string } {
  const upTo = stack.members.slice(0, stack.members.findIndex((m) => m.number === prNumber) + 1);
  return {
    members: upTo.map((m, i) => ({
      number: m.number,
      place: { id: stack.id, position: i + 1, kind: stack.kind, headRef: m.headRef, ...(stack.number !== null ? { number: stack.number } : {}) },
    })),
    target: stack.target,
  };
}

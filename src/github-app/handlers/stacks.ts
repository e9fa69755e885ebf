import type { Context } from 'probot';
import { repoOf, type AppDeps } from '../app-deps.js';

/** What a `pull_request` payload says of the PR's native stack (GitHub's `stack`, null or absent: none). */
interface StackedPayload {
  action: string;
  pull_request: { number: number; base: { ref: string }; stack?: { number: number } | null };
  stack?: { number: number } | null;
  changes?: { base?: { ref?: { from?: string } } };
  repository: { default_branch?: string };
}

const MEMBER_CHANGES = new Set(['stacked', 'synchronize', 'edited', 'closed', 'reopened']);

/**
 * A PR joined a native stack (`stacked`), or a stack member was pushed, retargeted, closed or
 * reopened: its stack is read again and the other members a queue holds recorded as they are now
 * (the PR itself is recorded from the payload by `onPullRequest`). A member is a PR with GitHub's `stack`, or one based
 * (or, retargeted, formerly based) on a branch other than the default branch: a chain's members above
 * the bottom. Other PRs cost no read.
 */
export async function onStackChanged(deps: AppDeps, context: Context<'pull_request'>): Promise<void> {
  const payload = context.payload as unknown as StackedPayload;
  if (!MEMBER_CHANGES.has(payload.action)) return;
  const defaultBranch = payload.repository.default_branch;
  const offDefault = (branch: string | undefined) => branch !== undefined && defaultBranch !== undefined && branch !== defaultBranch;
  const member = payload.action === 'stacked' || Boolean(payload.pull_request.stack) || offDefault(payload.pull_request.base.ref) || offDefault(payload.changes?.base?.ref?.from);
  if (!member) return;
  await deps.gitHostEvents.stackChanged(repoOf(deps.host, context.payload.repository), payload.pull_request.number);
}

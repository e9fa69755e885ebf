import type { Context } from 'probot';
import { TEST_BRANCH_PREFIX } from '../../domain/run.js';
import { repoOf, type AppDeps } from '../app-deps.js';

/** A push to a branch: the queues targeting it read its head again. Test branch pushes are ours. */
export async function onPush(deps: AppDeps, context: Context<'push'>): Promise<void> {
  const { ref, deleted, repository } = context.payload;
  if (deleted || !ref.startsWith('refs/heads/')) return;
  const branch = ref.slice('refs/heads/'.length);
  if (branch.startsWith(TEST_BRANCH_PREFIX)) return;
  await deps.gitHostEvents.branchMoved(repoOf(deps.host, repository), branch);
}

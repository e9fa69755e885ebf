import type { Context } from 'probot';
import { TEST_BRANCH_PREFIX } from '../../domain/run.js';
import { checkRunState, commitStatusState } from '../../githost/github/github-mapping.js';
import { repoOf, type AppDeps } from '../app-deps.js';

/**
 * Commit statuses: recorded for the run whose test branch head they are on; on the head of a
 * NOT_READY PR they make the queue read that PR again (see `GitHostEvents.commitChecksReported`).
 */
export async function onStatus(deps: AppDeps, context: Context<'status'>): Promise<void> {
  const { sha, context: name, state, target_url, repository } = context.payload;
  await deps.gitHostEvents.commitChecksReported(repoOf(deps.host, repository), sha, [{ context: name, state: commitStatusState(state), url: target_url ?? null }]);
}

/** Check runs, as statuses named after the check. */
export async function onCheckRun(deps: AppDeps, context: Context<'check_run'>): Promise<void> {
  const { check_run: run, repository } = context.payload;
  await deps.gitHostEvents.commitChecksReported(repoOf(deps.host, repository), run.head_sha, [{ context: run.name, state: checkRunState(run.status, run.conclusion), url: run.html_url ?? null }]);
}

/**
 * A finished check suite of a test branch: every check of its head is read again, in case a
 * check_run delivery was lost. Suites of other branches are not the queue's business.
 */
export async function onCheckSuite(deps: AppDeps, context: Context<'check_suite.completed'>): Promise<void> {
  const { check_suite: suite, repository } = context.payload;
  if (!suite.head_branch?.startsWith(TEST_BRANCH_PREFIX)) return;
  await deps.gitHostEvents.testBranchSuiteCompleted(repoOf(deps.host, repository), suite.head_sha);
}

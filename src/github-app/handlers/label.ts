import type { Context } from 'probot';
import { enqueueRulesOf, sameName } from '../../domain/enqueue-rules.js';
import { ServiceError } from '../../service/errors.js';
import { repoParams, type Octokit } from '../../githost/github/github-client.js';
import { toPullRequestInfo } from '../../githost/github/github-mapping.js';
import { repoOf, type AppDeps } from '../app-deps.js';
import { stackTarget } from '../stack-target.js';

/**
 * The queue's `enqueueLabel` (queue-labels.md): added to a PR, it submits the PR to the queue of its
 * base branch; removed, it cancels it — both only by users with write access, as `/merge`. Anyone
 * else gets one comment saying so, and the label is left as it is (removing it would be one more
 * write, and a second event).
 */
export async function onLabel(deps: AppDeps, context: Context<'pull_request.labeled' | 'pull_request.unlabeled'>): Promise<void> {
  const { action, label, pull_request: pr, repository, sender } = context.payload;
  if (!label) return;
  const repo = repoOf(deps.host, repository);
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  // Any other label costs no read of GitHub (nor a retarget of a PR based on a merged PR's branch).
  if (!(await deps.autoEnqueue.isEnqueueLabel(org, repo, label.name))) return;
  // A stack member's queue is that of the branch its stack lands on.
  const { target, stacked } = await stackTarget(deps, org, repo, toPullRequestInfo(pr));
  const queue = await deps.autoEnqueue.queueOf(org, repo, target);
  if (!queue) return;
  const queueLabel = enqueueRulesOf(queue.settings).enqueueLabel;
  if (!queueLabel || !sameName(queueLabel, label.name)) return;

  const octokit = context.octokit as unknown as Octokit;
  const comment = (body: string) =>
    octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...repoParams(repo), issue_number: pr.number, body });
  const adding = action === 'labeled';
  if (!(await deps.access.allows(octokit, repo, sender.login))) {
    const what = adding ? 'submit a pull request to the merge queue' : 'cancel a pull request in the merge queue';
    await comment(`@${sender.login} only users with write access to ${repo.owner}/${repo.name} can ${what} with the \`${queueLabel}\` label; the queue did not change.`);
    return;
  }
  const ref = { repo, targetBranch: queue.branch, pr: { number: pr.number } };
  try {
    if (adding) await deps.queueService.submitPullRequest(org, { ...ref, ...(stacked ? { stack: { below: true } as const } : {}) });
    else await deps.queueService.cancelPullRequest(org, ref);
  } catch (err) {
    if (!(err instanceof ServiceError) || err.status >= 500) throw err;
    // Removing the label from a PR that is not in the queue (any more) cancels nothing: nothing to say.
    if (adding) await comment(err.detail ?? err.title);
  }
}

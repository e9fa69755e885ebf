import type { Logger } from 'pino';
import type { Context } from 'probot';
import type { Org } from '../../domain/org.js';
import type { PullRequestInfo } from '../../domain/pull-request.js';
import type { RepoRef } from '../../domain/repo.js';
import { ServiceError } from '../../service/errors.js';
import type { PullRequestRefInput } from '../../service/queue/queue-inputs.js';
import type { SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { describeQueueHold, type MergeHoldRecord } from '../../records/merge-hold-record.js';
import { repoOf, type AppDeps } from '../app-deps.js';
import { parseComment, type MergeCommand } from '../command-parser.js';
import { repoParams, type Octokit } from '../../githost/github/github-client.js';
import { stackTarget } from '../stack-target.js';

/**
 * `/merge` comments on pull requests (github.md, "Comment commands"): only from users with write
 * access; each command is acknowledged with a reaction — the first thing a person hears, one write —
 * and errors are answered in one comment.
 */
export async function onIssueComment(deps: AppDeps, context: Context<'issue_comment.created'>): Promise<void> {
  const { comment, issue, repository, sender } = context.payload;
  if (!issue.pull_request || sender.type === 'Bot') return;
  const parsed = parseComment(comment.body);
  const login = comment.user?.login;
  if (parsed.kind === 'none' || !login) return;
  const octokit = context.octokit as unknown as Octokit;
  const repo = repoOf(deps.host, repository);
  const reply = new Reply(octokit, repo, issue.number, comment.id, deps.logger);
  let branch = '';
  try {
    if (!(await deps.access.allows(octokit, repo, login))) {
      await reply.fail(`@${login} only users with write access to ${repo.owner}/${repo.name} can use /merge.`);
      return;
    }
    if (parsed.kind === 'invalid') {
      await reply.fail(parsed.message);
      return;
    }
    const pr = await deps.gitHostEvents.readPullRequest(repo, issue.number);
    if (!pr) return; // deleted since the comment was made: nothing to act on
    const org = await deps.orgs.forOwner(repo.host, repo.owner);
    // A stack member acts in the queue of the branch its stack lands on, with the members below it.
    const { target, stacked, pr: current } = await stackTarget(deps, org, repo, pr);
    const ref = { repo, targetBranch: target, pr: { number: issue.number } };
    branch = ref.targetBranch;
    if (parsed.command.kind === 'submit') await deps.queueService.ensureQueue(org, ref);
    const queue = await deps.queueService.commandSettings(org, ref);
    if (!queue.commandsEnabled) {
      await reply.fail(`Comment commands are turned off for the merge queue of \`${ref.targetBranch}\`.`);
      return;
    }
    const answer = await run(deps, org, ref, parsed.command, current, queue, stacked);
    if (answer) await reply.comment(answer);
    // The 👍 is what a person hears first, a submission included: a PR whose run starts at once needs
    // no queued status besides (github.md, "What each write buys").
    reply.react('+1');
  } catch (err) {
    if (err instanceof ServiceError && err.status < 500) {
      await reply.fail(explain(err, branch));
      return;
    }
    // Unexpected: say so on the PR (best effort), and fail the delivery so a redelivery retries it.
    await reply.fail(`mergeq could not carry out this command just now (${shortReason(err)}); it will be handled if GitHub redelivers it, or comment it again in a minute.`).catch(() => undefined);
    throw err;
  }
}

/** An error in a few words, for a PR comment: never a stack, a URL of the API or a long message. */
function shortReason(err: unknown): string {
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number') return `GitHub or the queue answered ${status}`;
  return 'an unexpected error';
}

/** Carries out the command; returns the reply it needs beyond the reaction, if any. */
async function run(deps: AppDeps, org: Org, ref: PullRequestRefInput, command: MergeCommand, pullRequest: PullRequestInfo, queue: MergeHoldRecord, stacked: boolean): Promise<string | null> {
  const s = deps.queueService;
  switch (command.kind) {
    case 'submit':
      await s.submitPullRequest(
        org,
        { ...ref, noBatch: command.noBatch, ...(command.priority === undefined ? {} : { priority: command.priority }), ...(stacked ? { stack: { below: true } as const } : {}) },
        { pullRequest },
      );
      return null;
    case 'cancel':
      await s.cancelPullRequest(org, ref);
      return null;
    case 'restart':
      await s.restartTestsOnPullRequest(org, ref);
      return null;
    case 'status':
      return describe(await s.getSubmittedPullRequest(org, ref), describeQueueHold(queue));
  }
}

/** `/merge status`: state, position, the latest reason and what holds the queue's merges, in one line each. */
export function describe(pr: SubmittedPullRequestRecord, queueHold: string | null = null): string {
  const lines = [`**${pr.state}**${pr.position === null ? '' : ` — position ${pr.position} in the queue`} (priority ${pr.priorityName})`];
  if (queueHold && pr.isCurrentlySubmittedToQueue) lines.push(`The queue merges nothing now: ${queueHold}.`);
  if (pr.reason) lines.push(`${pr.reason.code}: ${pr.reason.message}`);
  if (pr.estimatedMergeAt) {
    const range = pr.estimatedMergeRange;
    const between = range ? `, most likely between ${range.earliest.slice(11, 16)} and ${range.latest.slice(11, 16)} UTC (${range.confidence * 100}% of merges fall in such a range)` : '';
    lines.push(`Estimated to merge at ${pr.estimatedMergeAt.slice(11, 16)} UTC${between} (${pr.estimatedMergeAt}).`);
  }
  else if (pr.estimateReason) lines.push(`No merge estimate: ${pr.estimateReason.message}.`);
  if (!pr.isCurrentlySubmittedToQueue) lines.push('It is not in the queue now; comment `/merge` to submit it again.');
  return lines.join('\n');
}

function explain(err: ServiceError, branch: string): string {
  if (err.code === 'queue_not_found') {
    return `There is no merge queue for \`${branch}\` in this repository. Create one with the API (\`POST /v1/createQueue\`).`;
  }
  return err.detail ?? err.title;
}

/** Reactions and replies on the PR whose comment held the command. */
class Reply {
  constructor(
    private readonly octokit: Octokit,
    private readonly repo: RepoRef,
    private readonly issueNumber: number,
    private readonly commentId: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Not waited for: a reaction is the App's first write in its budget (github.md, "Write budget") but
   * may still wait for its turn, while GitHub waits at most 10 s for the webhook's answer.
   */
  react(content: '+1' | 'confused'): void {
    this.octokit
      .request('POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { ...repoParams(this.repo), comment_id: this.commentId, content })
      .catch((err: unknown) => this.logger.warn({ err, pr: this.issueNumber }, 'could not react to a /merge comment'));
  }

  async comment(body: string): Promise<void> {
    await this.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repoParams(this.repo),
      issue_number: this.issueNumber,
      body,
    });
  }

  async fail(message: string): Promise<void> {
    this.react('confused');
    await this.comment(message);
  }
}

import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import type { MergeMethod } from '../../domain/settings.js';
import type { PullRequestStack } from '../../domain/stack.js';
import type {
  CommitStatusReport,
  CreateBranchResult,
  FastForwardResult,
  GitHost,
  MergeResult,
  PullRequestComment,
  PullRequestInfo,
  TestBranchSpec,
} from '../githost.js';
import { repoParams, type Octokit } from './github-client.js';
import { describeGitHubError, gitHubErrorMessages, gitHubMessage, httpStatus, orWhen } from './github-errors.js';
import { checkRunState, commitStatusState, toGitHubMergeMethod, toPullRequestInfo, truncateDescription } from './github-mapping.js';
import { editComment, findComment } from './pr-comments.js';
import { deleteRef, refHead } from './refs.js';
import { mergedPullOfBranch, openPullsBasedOn } from './merged-branches.js';
import { mergeStack, readStack, type StackMergeTiming } from './stacks.js';
import { TestBranchBuilder, openDraftPullRequest } from './test-branch.js';

export interface GitHubGitHostOptions {
  octokitFor(repo: RepoRef): Promise<Octokit>;
  /** How a stack merge waits between polls (default: real time). */
  stackMergeTiming?: StackMergeTiming;
}

const REAL_TIME: StackMergeTiming = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), now: () => Date.now() };

/** How long a retarget is remembered: the same one asked again meanwhile is not sent again. */
const RETARGET_MEMORY_MS = 60_000;

/** How many comment ids are remembered (the oldest are forgotten first: they are found again by listing). */
const MAX_REMEMBERED_COMMENTS = 10_000;

/**
 * The git host port on GitHub's REST API. Errors other than the ones the port answers for (404s,
 * merge refusals) propagate as octokit RequestErrors, whose numeric `status` lets the engine retry.
 */
export class GitHubGitHost implements GitHost {
  readonly kind = 'github' as const;
  /** Test branches are `mergeq/<target>/<n>`, moved for each run: one ref write per run, none to delete. */
  readonly reusesTestBranches = true;
  /** `repo#pr#marker` -> the id of the comment carrying that marker, so an update need not list the comments. */
  private readonly commentIds = new Map<string, number>();
  private readonly testBranches = new TestBranchBuilder();
  /** Retargets made lately (`repo#pr#base`), so that one asked twice at once is made once. */
  private readonly retargets = new Map<string, { done: Promise<void>; at: number }>();

  constructor(private readonly options: GitHubGitHostOptions) {}

  async getPullRequest(repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null> {
    const octokit = await this.options.octokitFor(repo);
    return orWhen([404], null, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...repoParams(repo), pull_number: prNumber });
      return toPullRequestInfo(data);
    });
  }

  async getBranchHead(repo: RepoRef, branch: string): Promise<string | null> {
    return refHead(await this.options.octokitFor(repo), repo, branch);
  }

  async requiredStatuses(repo: RepoRef, branch: string): Promise<string[]> {
    const octokit = await this.options.octokitFor(repo);
    const fromProtection = await orWhen([404], [], async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks', {
        ...repoParams(repo),
        branch,
      });
      return [...(data.contexts ?? []), ...(data.checks ?? []).map((c) => c.context)];
    });
    const fromRulesets = await orWhen([404], [], async () => {
      const rules = await octokit.paginate('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...repoParams(repo), branch, per_page: 100 });
      return rules.flatMap((rule) =>
        rule.type === 'required_status_checks' ? (rule.parameters?.required_status_checks ?? []).map((c) => c.context) : [],
      );
    });
    return [...new Set([...fromProtection, ...fromRulesets])];
  }

  /**
   * Merges on the queue's scratch branch, then creates the test branch in one step so CI sees a
   * single push. After a crash the test branch may exist already: adopted when its merge commits name
   * its base, else rebuilt. The draft PR, when asked for, is opened once the branch
   * exists, also when it existed already: a crash between the two is finished by the next create.
   * Any error opening it is answered as `draftPullRequestError` (the branch is built: throwing would
   * make the engine retry, then fail the run's PRs, for want of a convenience).
   */
  async createTestBranch(repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
    const octokit = await this.options.octokitFor(repo);
    const result = await this.testBranches.build(octokit, repo, spec);
    if (!result.ok || !spec.draftPullRequest) return result;
    try {
      await openDraftPullRequest(octokit, repo, spec.name, spec.baseBranch, spec.draftPullRequest);
      return result;
    } catch (error) {
      return { ...result, draftPullRequestError: describeGitHubError(error) };
    }
  }

  async deleteBranch(repo: RepoRef, name: string): Promise<void> {
    // A draft PR opened from the branch needs no call of its own: GitHub closes a PR whose head
    // branch is deleted.
    await deleteRef(await this.options.octokitFor(repo), repo, name);
  }

  /** Commit statuses and check runs; a check run wins over a status of the same name. */
  async readStatuses(repo: RepoRef, sha: string): Promise<StatusCheck[]> {
    const octokit = await this.options.octokitFor(repo);
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...repoParams(repo), ref: sha, per_page: 100 });
    const runs = await octokit.paginate('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...repoParams(repo), ref: sha, per_page: 100 });
    const checks = new Map<string, StatusCheck>();
    for (const s of data.statuses) checks.set(s.context, { context: s.context, state: commitStatusState(s.state), url: s.target_url ?? null });
    for (const r of runs) checks.set(r.name, { context: r.name, state: checkRunState(r.status, r.conclusion), url: r.html_url ?? null });
    return [...checks.values()];
  }

  async mergePullRequest(repo: RepoRef, prNumber: number, opts: { expectedSha: string; method: MergeMethod }): Promise<MergeResult> {
    const octokit = await this.options.octokitFor(repo);
    try {
      const { data } = await octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        ...repoParams(repo),
        pull_number: prNumber,
        sha: opts.expectedSha,
        merge_method: toGitHubMergeMethod(opts.method),
      });
      return { ok: true, sha: data.sha };
    } catch (error) {
      const status = httpStatus(error);
      if (status === 409) return { ok: false, code: 'pr_updated', message: gitHubMessage(error) };
      if (status === 405 || status === 422) return { ok: false, code: 'merge_conflict', message: gitHubMessage(error) };
      throw error;
    }
  }

  /**
   * `PATCH …/git/refs/heads/<branch>` with `force: false`: GitHub moves the branch only if its head is
   * an ancestor of `sha`, and marks merged every PR whose head `sha` now holds. A refusal by branch
   * protection (422 or 403 naming it: the App may not push there) is `protected`.
   */
  async fastForward(repo: RepoRef, branch: string, sha: string): Promise<FastForwardResult> {
    const octokit = await this.options.octokitFor(repo);
    try {
      await octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...repoParams(repo), ref: `heads/${branch}`, sha, force: false });
      return { ok: true };
    } catch (error) {
      const status = httpStatus(error);
      if (status !== 422 && status !== 403) throw error;
      const message = gitHubErrorMessages(error).join(': ');
      if (/protected branch|resource not accessible|not authorized|rule/i.test(message)) return { ok: false, code: 'protected', message };
      if (status === 422) return { ok: false, code: 'not_fast_forward', message };
      throw error;
    }
  }

  /** The reviews that block the PR (latest per reviewer), or what GitHub's rules still want. */
  async mergeBlockers(repo: RepoRef, prNumber: number): Promise<string> {
    const octokit = await this.options.octokitFor(repo);
    const reviews = await octokit.paginate('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', { ...repoParams(repo), pull_number: prNumber, per_page: 100 });
    const latest = new Map<string, string>();
    for (const r of reviews) if (r.user && r.state !== 'COMMENTED') latest.set(r.user.login, r.state);
    const changes = [...latest].filter(([, state]) => state === 'CHANGES_REQUESTED').map(([user]) => `@${user}`);
    if (changes.length > 0) return `changes requested by ${changes.join(', ')}`;
    const dismissed = [...latest.values()].some((state) => state === 'DISMISSED');
    if (![...latest.values()].includes('APPROVED')) return dismissed ? 'its approval was dismissed and an approving review is required' : 'an approving review is required';
    return 'the branch rules block it (required reviews from code owners, approval of the latest push, or required checks)';
  }

  async reportStatus(repo: RepoRef, sha: string, report: CommitStatusReport): Promise<void> {
    const octokit = await this.options.octokitFor(repo);
    await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      ...repoParams(repo),
      sha,
      state: report.state,
      context: report.context,
      description: truncateDescription(report.description),
      ...(report.targetUrl !== null ? { target_url: report.targetUrl } : {}),
    });
  }

  /**
   * Edits the comment remembered for the marker, else the first one on the PR whose body starts with
   * it (listed 100 at a time), else creates it. A remembered comment that was deleted (404) is
   * forgotten and looked for again.
   */
  async upsertPullRequestComment(repo: RepoRef, prNumber: number, comment: PullRequestComment): Promise<void> {
    const octokit = await this.options.octokitFor(repo);
    const key = `${repoKey(repo)}#${prNumber}#${comment.marker}`;
    const known = this.commentIds.get(key);
    if (known !== undefined) {
      if (await editComment(octokit, repo, known, comment.body)) {
        this.rememberComment(key, known);
        return;
      }
      this.commentIds.delete(key);
    }
    const found = await findComment(octokit, repo, prNumber, comment.marker);
    if (found !== null && (await editComment(octokit, repo, found, comment.body))) {
      this.rememberComment(key, found);
      return;
    }
    const { data } = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repoParams(repo),
      issue_number: prNumber,
      body: comment.body,
    });
    this.rememberComment(key, Number(data.id));
  }

  async headContains(repo: RepoRef, headSha: string, ancestorSha: string): Promise<boolean> {
    const octokit = await this.options.octokitFor(repo);
    return orWhen([404], false, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
        ...repoParams(repo),
        basehead: `${ancestorSha}...${headSha}`,
        per_page: 1,
      });
      return data.status === 'ahead' || data.status === 'identical';
    });
  }

  async openPullRequestsAt(repo: RepoRef, sha: string): Promise<number[]> {
    const octokit = await this.options.octokitFor(repo);
    const pulls = await orWhen([404, 422], [], () => octokit.paginate('GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls', { ...repoParams(repo), commit_sha: sha, per_page: 100 }));
    return pulls.filter((p) => p.state === 'open' && p.head.sha === sha).map((p) => p.number);
  }

  async getStack(repo: RepoRef, prNumber: number): Promise<PullRequestStack | null> {
    return readStack(await this.options.octokitFor(repo), repo, prNumber);
  }

  /**
   * One write per PR and base: the same retarget asked again within RETARGET_MEMORY_MS (a `/merge` and
   * the webhook of the merge below it, handled at once, each read the old base) waits for the first.
   */
  async retargetPullRequest(repo: RepoRef, prNumber: number, baseBranch: string): Promise<void> {
    const key = `${repoKey(repo)}#${prNumber}#${baseBranch}`;
    const now = Date.now();
    for (const [k, r] of this.retargets) if (now - r.at >= RETARGET_MEMORY_MS) this.retargets.delete(k);
    const recent = this.retargets.get(key);
    if (recent) return recent.done;
    const done = (async () => {
      const octokit = await this.options.octokitFor(repo);
      await octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...repoParams(repo), pull_number: prNumber, base: baseBranch });
    })();
    this.retargets.set(key, { done, at: now });
    done.catch(() => this.retargets.delete(key));
    return done;
  }

  async openPullRequestsBasedOn(repo: RepoRef, branch: string): Promise<number[]> {
    return openPullsBasedOn(await this.options.octokitFor(repo), repo, branch);
  }

  async mergedPullRequestOfBranch(repo: RepoRef, branch: string): Promise<{ number: number; baseBranch: string } | null> {
    return mergedPullOfBranch(await this.options.octokitFor(repo), repo, branch);
  }

  async mergeStack(repo: RepoRef, topPrNumber: number, opts: { expectedSha: string; method: MergeMethod }): Promise<MergeResult> {
    return mergeStack(await this.options.octokitFor(repo), repo, topPrNumber, opts, this.options.stackMergeTiming ?? REAL_TIME);
  }

  /** Most recently used last; beyond the limit the least recently used is forgotten. */
  private rememberComment(key: string, id: number): void {
    this.commentIds.delete(key);
    this.commentIds.set(key, id);
    if (this.commentIds.size > MAX_REMEMBERED_COMMENTS) this.commentIds.delete(this.commentIds.keys().next().value!);
  }
}


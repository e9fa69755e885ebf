import type { ProbotOctokit } from 'probot';
import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import type { MergeMethod } from '../../domain/settings.js';
import type {
  CommitStatusReport,
  CreateBranchResult,
  DraftPullRequestSpec,
  GitHost,
  MergeResult,
  PullRequestComment,
  PullRequestInfo,
  TestBranchSpec,
} from '../githost.js';
import { checkRunState, commitStatusState, toGitHubMergeMethod, toPullRequestInfo, truncateDescription } from './github-mapping.js';

/** An installation-authenticated GitHub client. */
export type Octokit = InstanceType<typeof ProbotOctokit>;

export interface GitHubGitHostOptions {
  octokitFor(repo: RepoRef): Promise<Octokit>;
}

/** How many comment ids are remembered (the oldest are forgotten first: they are found again by listing). */
const MAX_REMEMBERED_COMMENTS = 10_000;

/** The HTTP status of an octokit RequestError (or of anything carrying a numeric `status`). */
export function httpStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('status' in error)) return undefined;
  return typeof error.status === 'number' ? error.status : undefined;
}

/** GitHub's own message (RequestError.message may carry the documentation URL too). */
function gitHubMessage(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'response' in error) {
    const data = (error.response as { data?: unknown } | undefined)?.data;
    if (typeof data === 'object' && data !== null && 'message' in data && typeof data.message === 'string') return data.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** GitHub's message and those of its `errors` (a 422 "Validation Failed" says what failed there). */
function gitHubErrorMessages(error: unknown): string[] {
  const data = typeof error === 'object' && error !== null && 'response' in error ? (error.response as { data?: unknown } | undefined)?.data : undefined;
  const errors = typeof data === 'object' && data !== null && 'errors' in data && Array.isArray(data.errors) ? (data.errors as unknown[]) : [];
  const details = errors.flatMap((e) => (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string' ? [e.message] : []));
  return [gitHubMessage(error), ...details];
}

/** `422 Validation Failed: No commits between main and mergeq/main/r1`, for a log line. */
function describeGitHubError(error: unknown): string {
  const status = httpStatus(error);
  return `${status !== undefined ? `${status} ` : ''}${gitHubErrorMessages(error).join(': ')}`;
}

async function orWhen<T>(statuses: number[], fallback: T, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const status = httpStatus(error);
    if (status !== undefined && statuses.includes(status)) return fallback;
    throw error;
  }
}

/** The run id is the last segment of a test branch name (`mergeq/<target>/<runId>`). */
export function tmpRefFor(testBranch: string): string {
  return `mergeq-tmp/${testBranch.slice(testBranch.lastIndexOf('/') + 1)}`;
}

/**
 * The git host port on GitHub's REST API. Errors other than the ones the port answers for (404s,
 * merge refusals) propagate as octokit RequestErrors, whose numeric `status` lets the engine retry.
 */
export class GitHubGitHost implements GitHost {
  readonly kind = 'github' as const;
  /** `repo#pr#marker` -> the id of the comment carrying that marker, so an update need not list the comments. */
  private readonly commentIds = new Map<string, number>();

  constructor(private readonly options: GitHubGitHostOptions) {}

  async getPullRequest(repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null> {
    const octokit = await this.options.octokitFor(repo);
    return orWhen([404], null, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...params(repo), pull_number: prNumber });
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
        ...params(repo),
        branch,
      });
      return [...(data.contexts ?? []), ...(data.checks ?? []).map((c) => c.context)];
    });
    const fromRulesets = await orWhen([404], [], async () => {
      const rules = await octokit.paginate('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...params(repo), branch, per_page: 100 });
      return rules.flatMap((rule) =>
        rule.type === 'required_status_checks' ? (rule.parameters?.required_status_checks ?? []).map((c) => c.context) : [],
      );
    });
    return [...new Set([...fromProtection, ...fromRulesets])];
  }

  /**
   * Merges on a temporary ref, then creates the test branch in one step so CI sees a single push.
   * After a crash the test branch may exist already (answered as is) or the temporary ref may be
   * left over (reset to the base head). The draft PR, when asked for, is opened once the branch
   * exists, also when it existed already: a crash between the two is finished by the next create.
   * Any error opening it is answered as `draftPullRequestError` (the branch is built: throwing would
   * make the engine retry, then fail the run's PRs, for want of a convenience).
   */
  async createTestBranch(repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
    const octokit = await this.options.octokitFor(repo);
    const result = await buildTestBranch(octokit, repo, spec);
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
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...params(repo), ref: sha, per_page: 100 });
    const runs = await octokit.paginate('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...params(repo), ref: sha, per_page: 100 });
    const checks = new Map<string, StatusCheck>();
    for (const s of data.statuses) checks.set(s.context, { context: s.context, state: commitStatusState(s.state), url: s.target_url ?? null });
    for (const r of runs) checks.set(r.name, { context: r.name, state: checkRunState(r.status, r.conclusion), url: r.html_url ?? null });
    return [...checks.values()];
  }

  async mergePullRequest(repo: RepoRef, prNumber: number, opts: { expectedSha: string; method: MergeMethod }): Promise<MergeResult> {
    const octokit = await this.options.octokitFor(repo);
    try {
      const { data } = await octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        ...params(repo),
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

  async reportStatus(repo: RepoRef, sha: string, report: CommitStatusReport): Promise<void> {
    const octokit = await this.options.octokitFor(repo);
    await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      ...params(repo),
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
      ...params(repo),
      issue_number: prNumber,
      body: comment.body,
    });
    this.rememberComment(key, Number(data.id));
  }

  async headContains(repo: RepoRef, headSha: string, ancestorSha: string): Promise<boolean> {
    const octokit = await this.options.octokitFor(repo);
    return orWhen([404], false, async () => {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
        ...params(repo),
        basehead: `${ancestorSha}...${headSha}`,
        per_page: 1,
      });
      return data.status === 'ahead' || data.status === 'identical';
    });
  }

  /** Most recently used last; beyond the limit the least recently used is forgotten. */
  private rememberComment(key: string, id: number): void {
    this.commentIds.delete(key);
    this.commentIds.set(key, id);
    if (this.commentIds.size > MAX_REMEMBERED_COMMENTS) this.commentIds.delete(this.commentIds.keys().next().value!);
  }
}

function params(repo: RepoRef): { owner: string; repo: string } {
  return { owner: repo.owner, repo: repo.name };
}

/** The test branch, built or found (see createTestBranch); a conflict creates nothing. */
async function buildTestBranch(octokit: Octokit, repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
  const existing = await refHead(octokit, repo, spec.name);
  const baseSha = await refHead(octokit, repo, spec.baseBranch);
  if (baseSha === null) throw Object.assign(new Error(`branch ${spec.baseBranch} does not exist`), { status: 404 });
  if (existing !== null) return { ok: true, sha: existing, baseSha };

  const tmp = tmpRefFor(spec.name);
  await resetRef(octokit, repo, tmp, baseSha);
  try {
    const merged = await mergeAll(octokit, repo, tmp, baseSha, spec);
    if ('conflictPrNumber' in merged) {
      await deleteRef(octokit, repo, tmp);
      return { ok: false, conflictPrNumber: merged.conflictPrNumber };
    }
    const sha = await createRef(octokit, repo, spec.name, merged.sha);
    await deleteRef(octokit, repo, tmp);
    return { ok: true, sha, baseSha };
  } catch (error) {
    await deleteRef(octokit, repo, tmp).catch(() => undefined);
    throw error;
  }
}

/**
 * Opens a draft PR from `head` into `base`. A 422 saying a pull request already exists for that head
 * means an earlier create opened it (then crashed, or was retried): it is the PR, fine. There is no
 * close call: deleting the test branch when the run ends closes the PR on GitHub.
 */
async function openDraftPullRequest(octokit: Octokit, repo: RepoRef, head: string, base: string, pr: DraftPullRequestSpec): Promise<void> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/pulls', { ...params(repo), title: pr.title, body: pr.body, head, base, draft: true });
  } catch (error) {
    if (httpStatus(error) === 422 && gitHubErrorMessages(error).some((m) => /pull request already exists/i.test(m))) return;
    throw error;
  }
}

async function refHead(octokit: Octokit, repo: RepoRef, branch: string): Promise<string | null> {
  return orWhen([404], null, async () => {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...params(repo), ref: `heads/${branch}` });
    return data.object.sha;
  });
}

async function deleteRef(octokit: Octokit, repo: RepoRef, branch: string): Promise<void> {
  // 422 is GitHub's "Reference does not exist".
  await orWhen([404, 422], undefined, async () => {
    await octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...params(repo), ref: `heads/${branch}` });
  });
}

/** The id of the first comment of the PR whose body starts with `marker`; null when there is none. */
async function findComment(octokit: Octokit, repo: RepoRef, prNumber: number, marker: string): Promise<number | null> {
  const pages = octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...params(repo),
    issue_number: prNumber,
    per_page: 100,
  });
  for await (const { data } of pages) {
    const found = data.find((c) => c.body?.startsWith(marker));
    if (found) return Number(found.id);
  }
  return null;
}

/** Replaces a comment's body; false when the comment is gone (404). */
async function editComment(octokit: Octokit, repo: RepoRef, commentId: number, body: string): Promise<boolean> {
  return orWhen([404], false, async () => {
    await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...params(repo), comment_id: commentId, body });
    return true;
  });
}

/** Creates `branch` at `sha`; if it was created meanwhile, answers where it points. */
async function createRef(octokit: Octokit, repo: RepoRef, branch: string, sha: string): Promise<string> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...params(repo), ref: `refs/heads/${branch}`, sha });
    return sha;
  } catch (error) {
    if (httpStatus(error) !== 422) throw error;
    const head = await refHead(octokit, repo, branch);
    if (head === null) throw error;
    return head;
  }
}

/** Points `branch` at `sha`, creating it or force-moving a leftover one. */
async function resetRef(octokit: Octokit, repo: RepoRef, branch: string, sha: string): Promise<void> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...params(repo), ref: `refs/heads/${branch}`, sha });
  } catch (error) {
    if (httpStatus(error) !== 422) throw error;
    await octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...params(repo), ref: `heads/${branch}`, sha, force: true });
  }
}

/** Merges each PR head into `tmp` in order: the resulting head, or the first PR that conflicts. */
async function mergeAll(
  octokit: Octokit,
  repo: RepoRef,
  tmp: string,
  baseSha: string,
  spec: TestBranchSpec,
): Promise<{ sha: string } | { conflictPrNumber: number }> {
  let head = baseSha;
  for (const pr of spec.prs) {
    try {
      const response = await octokit.request('POST /repos/{owner}/{repo}/merges', {
        ...params(repo),
        base: tmp,
        head: pr.sha,
        commit_message: `Merge #${pr.number} (${pr.sha}) into ${spec.name}`,
      });
      // 204: the head is already contained, nothing was merged.
      const status: number = response.status;
      if (status !== 204) head = response.data.sha;
    } catch (error) {
      if (httpStatus(error) === 409) return { conflictPrNumber: pr.number };
      throw error;
    }
  }
  return { sha: head };
}

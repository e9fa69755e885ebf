import type { RepoRef } from '../../domain/repo.js';
import type { CreateBranchResult, DraftPullRequestSpec, TestBranchSpec } from '../githost.js';
import { repoParams, type Octokit } from './github-client.js';
import { gitHubErrorMessages, httpStatus } from './github-errors.js';
import { createRef, deleteRef, refHead, resetRef } from './refs.js';
import { repoKey } from '../../domain/repo.js';

/**
 * The scratch branch test branches are built on, one per target branch. It is moved for each build
 * and never deleted (as bors keeps `staging.tmp`): creating and deleting one per run would cost two
 * writes of the few a second GitHub allows.
 */
export function scratchRefFor(baseBranch: string): string {
  return `mergeq-tmp/${baseBranch}`;
}

/** The trailer naming, in each merge commit of a test branch, the target head the branch stands on. */
const BASE_TRAILER = /^mergeq-base: (\S+)$/m;

/**
 * Builds test branches (see createTestBranch), remembering where each scratch branch points so that
 * a build continuing from the last one moves nothing.
 */
export class TestBranchBuilder {
  /** `repo#scratch ref` -> the commit it points at, as this process last left it. */
  private readonly scratchHeads = new Map<string, string>();

  async build(octokit: Octokit, repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
    // A reused branch holds an earlier run's commit: nothing to adopt.
    const existing = spec.reuse ? null : await refHead(octokit, repo, spec.name);
    if (existing !== null) {
      // Built before a crash: adopted only if its base is known, else rebuilt from scratch.
      const base = await baseOf(octokit, repo, existing);
      if (base !== null) return { ok: true, sha: existing, baseSha: base, adopted: true };
      await deleteRef(octokit, repo, spec.name);
    }
    const scratch = scratchRefFor(spec.baseBranch);
    const key = `${repoKey(repo)}#${scratch}`;
    try {
      const start = await this.startOn(octokit, repo, scratch, key, spec);
      const merged = await mergeAll(octokit, repo, scratch, start.sha, start.prs, start.baseSha);
      if ('conflictPrNumber' in merged) {
        this.scratchHeads.delete(key);
        return { ok: false, conflictPrNumber: merged.conflictPrNumber };
      }
      this.scratchHeads.set(key, merged.sha);
      // One ref write publishes the build: CI sees one push.
      if (spec.reuse) {
        await resetRef(octokit, repo, spec.name, merged.sha);
        return { ok: true, sha: merged.sha, baseSha: start.baseSha, startSha: start.sha };
      }
      const sha = await createRef(octokit, repo, spec.name, merged.sha);
      return { ok: true, sha, baseSha: start.baseSha, ...(sha === merged.sha ? { startSha: start.sha } : {}) };
    } catch (error) {
      this.scratchHeads.delete(key);
      throw error;
    }
  }

  /** Points the scratch branch at where the build starts: `spec.startFrom`, else the target head. */
  private async startOn(
    octokit: Octokit,
    repo: RepoRef,
    scratch: string,
    key: string,
    spec: TestBranchSpec,
  ): Promise<{ sha: string; baseSha: string; prs: TestBranchSpec['prs'] }> {
    const from = spec.startFrom;
    if (from) {
      try {
        await this.moveScratch(octokit, repo, scratch, key, from.sha);
        return { sha: from.sha, baseSha: from.baseSha, prs: spec.prs.slice(from.prCount) };
      } catch (error) {
        // 422: that commit is gone; build from the target head instead.
        if (httpStatus(error) !== 422) throw error;
      }
    }
    const head = await refHead(octokit, repo, spec.baseBranch);
    if (head === null) throw Object.assign(new Error(`branch ${spec.baseBranch} does not exist`), { status: 404 });
    await this.moveScratch(octokit, repo, scratch, key, head);
    return { sha: head, baseSha: head, prs: spec.prs };
  }

  private async moveScratch(octokit: Octokit, repo: RepoRef, scratch: string, key: string, sha: string): Promise<void> {
    if (this.scratchHeads.get(key) === sha) return;
    this.scratchHeads.delete(key);
    await resetRef(octokit, repo, scratch, sha);
    this.scratchHeads.set(key, sha);
  }
}

/** The base a test branch head names in its trailer; null when it names none. */
async function baseOf(octokit: Octokit, repo: RepoRef, sha: string): Promise<string | null> {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...repoParams(repo), commit_sha: sha });
  return BASE_TRAILER.exec(data.message)?.[1] ?? null;
}

/**
 * Opens a draft PR from `head` into `base`. A 422 saying a pull request already exists for that head
 * means an earlier create opened it (then crashed, or was retried): it is the PR, fine. There is no
 * close call: deleting the test branch when the run ends closes the PR on GitHub.
 */
export async function openDraftPullRequest(octokit: Octokit, repo: RepoRef, head: string, base: string, pr: DraftPullRequestSpec): Promise<void> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/pulls', { ...repoParams(repo), title: pr.title, body: pr.body, head, base, draft: true });
  } catch (error) {
    if (httpStatus(error) === 422 && gitHubErrorMessages(error).some((m) => /pull request already exists/i.test(m))) return;
    throw error;
  }
}

/**
 * Merges each PR head into the scratch branch in order: the resulting head, or the first PR that
 * conflicts. The merge commits read like GitHub's own, since a fast-forward makes them the target
 * branch's history; each names the target head the test branch stands on.
 */
async function mergeAll(
  octokit: Octokit,
  repo: RepoRef,
  scratch: string,
  startSha: string,
  prs: TestBranchSpec['prs'],
  baseSha: string,
): Promise<{ sha: string } | { conflictPrNumber: number }> {
  let head = startSha;
  for (const pr of prs) {
    try {
      const response = await octokit.request('POST /repos/{owner}/{repo}/merges', {
        ...repoParams(repo),
        base: scratch,
        head: pr.sha,
        commit_message: mergeCommitMessage(pr, baseSha),
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

/** `Merge pull request #12 from owner/branch`, the PR's title, and the `mergeq-base` trailer, as GitHub's own merge commits read. */
export function mergeCommitMessage(pr: TestBranchSpec['prs'][number], baseSha: string): string {
  const from = pr.from ? ` from ${pr.from}` : '';
  return `Merge pull request #${pr.number}${from}${pr.title ? `\n\n${pr.title}` : ''}\n\nmergeq-base: ${baseSha}`;
}

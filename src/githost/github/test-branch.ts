import type { RepoRef } from '../../domain/repo.js';
import type { CreateBranchResult, DraftPullRequestSpec, TestBranchSpec } from '../githost.js';
import { repoParams, type Octokit } from './github-client.js';
import { gitHubErrorMessages, httpStatus } from './github-errors.js';
import { createRef, deleteRef, refHead, resetRef } from './refs.js';

/** The run id is the last segment of a test branch name (`mergeq/<target>/<runId>`). */
export function tmpRefFor(testBranch: string): string {
  return `mergeq-tmp/${testBranch.slice(testBranch.lastIndexOf('/') + 1)}`;
}

/** The test branch, built or found (see createTestBranch); a conflict creates nothing. */
export async function buildTestBranch(octokit: Octokit, repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
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
export async function openDraftPullRequest(octokit: Octokit, repo: RepoRef, head: string, base: string, pr: DraftPullRequestSpec): Promise<void> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/pulls', { ...repoParams(repo), title: pr.title, body: pr.body, head, base, draft: true });
  } catch (error) {
    if (httpStatus(error) === 422 && gitHubErrorMessages(error).some((m) => /pull request already exists/i.test(m))) return;
    throw error;
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
        ...repoParams(repo),
        base: tmp,
        head: pr.sha,
        // No bare #N: a pushed commit that names a PR shows up in that PR's timeline, on every run.
        commit_message: `Merge PR ${pr.number} (${pr.sha}) into ${spec.name}`,
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

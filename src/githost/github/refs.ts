import type { RepoRef } from '../../domain/repo.js';
import { repoParams, type Octokit } from './github-client.js';
import { httpStatus, orWhen } from './github-errors.js';

/** Branch refs through the git data API. */

/** The commit a branch points at; null when there is no such branch. */
export async function refHead(octokit: Octokit, repo: RepoRef, branch: string): Promise<string | null> {
  return orWhen([404], null, async () => {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repoParams(repo), ref: `heads/${branch}` });
    return data.object.sha;
  });
}

/** Deletes a branch; a missing one is not an error. */
export async function deleteRef(octokit: Octokit, repo: RepoRef, branch: string): Promise<void> {
  // 422 is GitHub's "Reference does not exist".
  await orWhen([404, 422], undefined, async () => {
    await octokit.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...repoParams(repo), ref: `heads/${branch}` });
  });
}

/** Creates `branch` at `sha`; if it was created meanwhile, answers where it points. */
export async function createRef(octokit: Octokit, repo: RepoRef, branch: string, sha: string): Promise<string> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...repoParams(repo), ref: `refs/heads/${branch}`, sha });
    return sha;
  } catch (error) {
    if (httpStatus(error) !== 422) throw error;
    const head = await refHead(octokit, repo, branch);
    if (head === null) throw error;
    return head;
  }
}

/** Points `branch` at `sha`, force-moving it, or creating it the first time. */
export async function resetRef(octokit: Octokit, repo: RepoRef, branch: string, sha: string): Promise<void> {
  try {
    await octokit.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', { ...repoParams(repo), ref: `heads/${branch}`, sha, force: true });
  } catch (error) {
    // 422 "Reference does not exist" (or the commit does not: then the create fails with 422 too).
    if (httpStatus(error) !== 422) throw error;
    await octokit.request('POST /repos/{owner}/{repo}/git/refs', { ...repoParams(repo), ref: `refs/heads/${branch}`, sha });
  }
}

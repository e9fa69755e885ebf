import type { RepoRef } from '../../domain/repo.js';
import { repoParams, type Octokit } from './github-client.js';
import { orWhen } from './github-errors.js';

/** The queue's status comment on a PR, found by its marker (see GitHost.upsertPullRequestComment). */

/** The id of the first comment of the PR whose body starts with `marker`; null when there is none. */
export async function findComment(octokit: Octokit, repo: RepoRef, prNumber: number, marker: string): Promise<number | null> {
  const pages = octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...repoParams(repo),
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
export async function editComment(octokit: Octokit, repo: RepoRef, commentId: number, body: string): Promise<boolean> {
  return orWhen([404], false, async () => {
    await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repoParams(repo), comment_id: commentId, body });
    return true;
  });
}

import type { RepoRef } from '../../domain/repo.js';
import { repoParams, type Octokit } from './github-client.js';

/** A PR as the pulls list gives it, as far as a merged branch's PRs are concerned. */
interface ListedPull {
  number: number;
  merged_at?: string | null;
  base: { ref: string };
  stack?: unknown;
}

/**
 * The open PRs based on `branch`, outside GitHub's native stacks (GitHub moves a native stack's new
 * bottom onto the stack's base itself): the plain-chain members above the PR whose head `branch` is.
 */
export async function openPullsBasedOn(octokit: Octokit, repo: RepoRef, branch: string): Promise<number[]> {
  const pulls = (await octokit.paginate('GET /repos/{owner}/{repo}/pulls', { ...repoParams(repo), state: 'open', base: branch, per_page: 100 })) as unknown as ListedPull[];
  return pulls.filter((p) => !p.stack).map((p) => p.number);
}

/**
 * The merged PR whose head is `branch` of the repository itself (GitHub's `head=owner:branch`), and
 * the branch it merged into; null when none merged. A merged PR's branch stays until someone deletes
 * it, and the PRs based on it keep it as their base until then.
 */
export async function mergedPullOfBranch(octokit: Octokit, repo: RepoRef, branch: string): Promise<{ number: number; baseBranch: string } | null> {
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls', { ...repoParams(repo), state: 'closed', head: `${repo.owner}:${branch}`, per_page: 100 });
  const merged = (data as unknown as ListedPull[]).find((p) => p.merged_at);
  return merged ? { number: merged.number, baseBranch: merged.base.ref } : null;
}

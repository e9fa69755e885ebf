import type { RepoRef } from '../../domain/repo.js';
import { repoParams, type Octokit } from './github-client.js';

/** A file of the repository at `ref` (the default branch when absent), or null when it does not exist there. */
export async function readRepoFile(octokit: Octokit, repo: RepoRef, path: string, ref?: string): Promise<string | null> {
  try {
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...repoParams(repo), path, ...(ref ? { ref } : {}) });
    if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) return null;
    return Buffer.from(data.content, 'base64').toString('utf8');
  } catch (err) {
    if ((err as { status?: number }).status === 404) return null;
    throw err;
  }
}

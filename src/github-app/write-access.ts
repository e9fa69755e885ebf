import type { RepoRef } from '../domain/repo.js';
import type { Octokit } from '../githost/github/github-client.js';
import { httpStatus } from '../githost/github/github-errors.js';

const WRITERS = new Set(['admin', 'maintain', 'write']);

/**
 * Who may use comment commands: users with write, maintain or admin permission on the repository,
 * as GitHub says (`role_name` names maintain, which `permission` reports as write). Answers are kept
 * for `ttlMs`, so a burst of comments asks once.
 */
export class WriteAccess {
  private readonly known = new Map<string, { allowed: boolean; until: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async allows(octokit: Octokit, repo: RepoRef, login: string): Promise<boolean> {
    const key = `${repo.host}/${repo.owner}/${repo.name}/${login}`.toLowerCase();
    const cached = this.known.get(key);
    if (cached && cached.until > this.now()) return cached.allowed;
    let allowed: boolean;
    try {
      const { data } = await octokit.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
        owner: repo.owner,
        repo: repo.name,
        username: login,
      });
      allowed = WRITERS.has(data.permission) || WRITERS.has(data.role_name);
    } catch (err) {
      // Not a collaborator at all.
      if (httpStatus(err) !== 404) throw err;
      allowed = false;
    }
    this.known.set(key, { allowed, until: this.now() + this.ttlMs });
    return allowed;
  }
}

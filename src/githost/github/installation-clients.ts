import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { Octokit } from './github-client.js';

export interface InstallationClientsOptions {
  /** A client authenticated as the app (JWT); with probot, `() => probot.auth()`. */
  appOctokit: () => Promise<Octokit>;
  /** With probot, `(id) => probot.auth(id)` (which caches installation tokens itself). */
  installationOctokit: (installationId: number) => Promise<Octokit>;
  /** How long a repository's installation id is trusted; 10 minutes by default. */
  ttlMs?: number;
  now?: () => number;
}

const DEFAULT_TTL_MS = 10 * 60_000;

/** Installation-authenticated clients per repository, with the repository's installation id cached. */
export class InstallationClients {
  private readonly ids = new Map<string, { installationId: number; expiresAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: InstallationClientsOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async forRepo(repo: RepoRef): Promise<Octokit> {
    return this.options.installationOctokit(await this.installationId(repo));
  }

  /** Primes the cache from a webhook payload, which names the installation. */
  remember(repo: RepoRef, installationId: number): void {
    this.ids.set(repoKey(repo), { installationId, expiresAt: this.now() + this.ttlMs });
  }

  private async installationId(repo: RepoRef): Promise<number> {
    const cached = this.ids.get(repoKey(repo));
    if (cached && cached.expiresAt > this.now()) return cached.installationId;
    const app = await this.options.appOctokit();
    const { data } = await app.request('GET /repos/{owner}/{repo}/installation', { owner: repo.owner, repo: repo.name });
    this.remember(repo, data.id);
    return data.id;
  }
}

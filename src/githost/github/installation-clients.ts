import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import { repoParams, type Octokit } from './github-client.js';

export interface InstallationClientsOptions {
  /** A client authenticated as the app (JWT); with probot, `() => probot.auth()`. */
  appOctokit: () => Promise<Octokit>;
  /**
   * With probot, `(id) => probot.auth(id)`. Called once per installation: the client renews its own
   * token, and one client per installation keeps probot's throttling of write requests shared.
   */
  installationOctokit: (installationId: number) => Promise<Octokit>;
  /** How long a repository's installation id is trusted; 10 minutes by default. */
  ttlMs?: number;
  now?: () => number;
}

const DEFAULT_TTL_MS = 10 * 60_000;

/** Installation-authenticated clients per repository, with the repository's installation id cached. */
export class InstallationClients {
  private readonly ids = new Map<string, { installationId: number; expiresAt: number }>();
  private readonly clients = new Map<number, Promise<Octokit>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: InstallationClientsOptions) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async forRepo(repo: RepoRef): Promise<Octokit> {
    const id = await this.installationId(repo);
    let client = this.clients.get(id);
    if (!client) {
      client = this.options.installationOctokit(id);
      this.clients.set(id, client);
      // A failed creation is not kept: the next call tries again.
      client.catch(() => this.clients.delete(id));
    }
    return client;
  }

  /** The repository's installation id, if known (no request). */
  installationOf(repo: RepoRef): number | undefined {
    return this.ids.get(repoKey(repo))?.installationId;
  }

  /** Primes the cache from a webhook payload, which names the installation. */
  remember(repo: RepoRef, installationId: number): void {
    this.ids.set(repoKey(repo), { installationId, expiresAt: this.now() + this.ttlMs });
  }

  private async installationId(repo: RepoRef): Promise<number> {
    const cached = this.ids.get(repoKey(repo));
    if (cached && cached.expiresAt > this.now()) return cached.installationId;
    const app = await this.options.appOctokit();
    const { data } = await app.request('GET /repos/{owner}/{repo}/installation', repoParams(repo));
    this.remember(repo, data.id);
    return data.id;
  }
}

import { ownersOf, parseCodeOwners, type CodeOwnersRule } from '../../domain/codeowners-rules.js';
import type { CodeOwnersSource } from '../../domain/codeowners-source.js';
import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { Octokit } from './github-client.js';
import { readRepoFile } from './repo-file.js';

/** Where GitHub looks for CODEOWNERS, in its order: the first that exists is used. */
export const CODEOWNERS_PATHS = ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'] as const;
const DEFAULT_TTL_MS = 10 * 60_000;
/**
 * A failed read gives `[]` for this long before GitHub is asked again: an upload that quarantines
 * 20,000 tests asks for each, and must not wait for a failing GitHub 20,000 times.
 */
export const FAILURE_TTL_MS = 30_000;

/**
 * CODEOWNERS read from a repository's default branch with the App's installation client, cached per
 * repository (a missing file is cached too). A read that fails gives `[]`, and is cached only briefly.
 */
export class GitHubCodeOwners implements CodeOwnersSource {
  private readonly cache = new Map<string, { rules: CodeOwnersRule[]; expiresAt: number }>();

  constructor(
    private readonly octokitFor: (repo: RepoRef) => Promise<Octokit>,
    private readonly options: { ttlMs?: number; now?: () => number } = {},
  ) {}

  async ownersOf(repo: RepoRef, file: string | null): Promise<string[]> {
    if (!file) return [];
    try {
      return ownersOf(await this.rules(repo), file);
    } catch {
      return [];
    }
  }

  private async rules(repo: RepoRef): Promise<CodeOwnersRule[]> {
    const now = (this.options.now ?? Date.now)();
    const key = repoKey(repo);
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt > now) return cached.rules;
    try {
      const rules = await this.read(repo);
      this.cache.set(key, { rules, expiresAt: now + (this.options.ttlMs ?? DEFAULT_TTL_MS) });
      return rules;
    } catch (err) {
      this.cache.set(key, { rules: [], expiresAt: now + FAILURE_TTL_MS });
      throw err;
    }
  }

  private async read(repo: RepoRef): Promise<CodeOwnersRule[]> {
    const octokit = await this.octokitFor(repo);
    for (const path of CODEOWNERS_PATHS) {
      const text = await readRepoFile(octokit, repo, path);
      if (text !== null) return parseCodeOwners(text);
    }
    return [];
  }
}

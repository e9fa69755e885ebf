import type { RepoRef } from './repo.js';

/** Who owns a file of a repository, from its CODEOWNERS; `[]` where unknown. */
export interface CodeOwnersSource {
  ownersOf(repo: RepoRef, file: string | null): Promise<string[]>;
}

/** Without a git host that can read files: owners are unknown. */
export const noCodeOwners: CodeOwnersSource = { ownersOf: async () => [] };

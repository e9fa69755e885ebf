/** A repository as clients name it in request bodies. */
export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/** Hosts, owners and names are case-insensitive on every git host we support. */
export function repoKey(repo: RepoRef): string {
  return `${repo.host}/${repo.owner}/${repo.name}`.toLowerCase();
}

/** The `host/owner` pair an organization owns. */
export function ownerKey(host: string, owner: string): string {
  return `${host}/${owner}`.toLowerCase();
}

export function repoFullName(repo: RepoRef): string {
  return `${repo.owner}/${repo.name}`;
}

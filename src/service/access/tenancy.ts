import type { Org } from '../../domain/org.js';
import { ownerKey, type RepoRef } from '../../domain/repo.js';
import { forbidden } from '../errors.js';

/**
 * A token acts only on repositories whose `host/owner` its organization owns. Checked before any
 * lookup, so a token never learns whether another organization's queue exists.
 */
export function assertOwnsRepo(org: Org, repo: Pick<RepoRef, 'host' | 'owner'>): void {
  if (!org.owners.includes(ownerKey(repo.host, repo.owner))) {
    throw forbidden(`${repo.host}/${repo.owner} is not owned by this organization`);
  }
}

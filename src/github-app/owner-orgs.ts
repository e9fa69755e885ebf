import type { Org } from '../domain/org.js';
import { ServiceError } from '../service/errors.js';
import type { OrgService } from '../service/access/org-service.js';

/** Slug suffixes tried when the account's own name is taken by another organization. */
const MAX_SLUG_TRIES = 5;

/**
 * The mergeq organization a GitHub account's repositories belong to. Installing the App on an
 * account is its owner's consent: when no organization owns `host/account` yet, one is created for
 * it, named after the account (an administrator can then issue API tokens for it with
 * `mergeq token create <slug>`).
 */
export class OwnerOrgs {
  constructor(private readonly orgs: OrgService) {}

  async forOwner(host: string, owner: string): Promise<Org> {
    const base = owner.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'github';
    for (let i = 0; i < MAX_SLUG_TRIES; i++) {
      const found = await this.orgs.findOrgByOwner(host, owner);
      if (found) return found;
      try {
        return await this.orgs.createOrg(i === 0 ? base : `${base}-${i + 1}`, [`${host}/${owner}`]);
      } catch (err) {
        // The slug is taken, or another process created the organization meanwhile: look again.
        if (!(err instanceof ServiceError) || err.status !== 409) throw err;
      }
    }
    const found = await this.orgs.findOrgByOwner(host, owner);
    if (found) return found;
    throw new Error(`no organization could be created for ${host}/${owner}: the slugs "${base}" to "${base}-${MAX_SLUG_TRIES}" are taken`);
  }
}

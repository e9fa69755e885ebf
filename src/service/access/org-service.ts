import { randomUUID } from 'node:crypto';
import type { ApiToken, Org } from '../../domain/org.js';
import { ownerKey } from '../../domain/repo.js';
import type { Clock } from '../../domain/clock.js';
import { ConflictError } from '../../store/errors.js';
import type { OrgStore } from '../../store/store.js';
import { ServiceError } from '../errors.js';
import { displayPrefix, generateToken, hashToken } from './tokens.js';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_SLUG_LENGTH = 64;
const HOST = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/i;
const OWNER = /^[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9_])?$/i;
const MAX_TOKEN_NAME_LENGTH = 100;
export const DEFAULT_TOKEN_NAME = 'default';

function invalid(path: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_request', 'Invalid request', `${path}: ${message}`, [{ path, message }]);
}

function orgNotFound(slug: string): ServiceError {
  return new ServiceError(404, 'org_not_found', 'Organization not found', `no organization with slug "${slug}"`);
}

/** Checks an organization slug: lower-case letters, digits and single dashes. */
export function validateSlug(slug: string): string {
  if (slug.length > MAX_SLUG_LENGTH || !SLUG.test(slug)) {
    throw invalid(
      'slug',
      `"${slug}" is not a valid slug: use lower-case letters, digits and dashes (at most ${MAX_SLUG_LENGTH}), e.g. "acme" or "acme-labs"`,
    );
  }
  return slug;
}

/** Parses `host/owner` (e.g. `github.com/acme`) into its ownerKey. */
export function parseOwner(text: string): string {
  const parts = text.split('/');
  const [host, owner] = parts;
  if (parts.length !== 2 || !host || !owner || !HOST.test(host) || !OWNER.test(owner)) {
    throw invalid('owner', `"${text}" is not a repository owner: write host/owner, e.g. github.com/acme`);
  }
  return ownerKey(host, owner);
}

/** Organizations and their API tokens: the administration behind `mergeq org` and `mergeq token`. */
export class OrgService {
  private readonly newId: () => string;

  constructor(
    private readonly store: { orgs: OrgStore },
    private readonly clock: Clock,
    options: { newId?: () => string } = {},
  ) {
    this.newId = options.newId ?? randomUUID;
  }

  async createOrg(slug: string, owners: string[]): Promise<Org> {
    validateSlug(slug);
    if (owners.length === 0) throw invalid('owners', 'give at least one repository owner, e.g. github.com/acme');
    const ownerKeys = [...new Set(owners.map(parseOwner))];
    if (await this.store.orgs.getOrgBySlug(slug)) {
      throw new ServiceError(409, 'org_exists', 'Organization exists', `an organization with slug "${slug}" already exists`);
    }
    for (const key of ownerKeys) {
      const holder = await this.store.orgs.findOrgByOwner(key);
      if (holder) throw ownerTaken(key, holder.slug);
    }
    const org: Org = { id: this.newId(), slug, owners: ownerKeys, createdAt: this.clock.now().toISOString() };
    try {
      await this.store.orgs.createOrg(org);
    } catch (err) {
      // Another process took the slug or an owner between the checks above and the insert.
      if (err instanceof ConflictError) {
        throw new ServiceError(409, 'org_exists', 'Organization exists', err.message);
      }
      throw err;
    }
    return org;
  }

  async getOrg(slug: string): Promise<Org> {
    const org = await this.store.orgs.getOrgBySlug(slug);
    if (!org) throw orgNotFound(slug);
    return org;
  }

  /** Every organization, by slug. */
  listOrgs(): Promise<Org[]> {
    return this.store.orgs.listOrgs();
  }

  /** The organization that owns the repositories of `host/owner`, or null. */
  findOrgByOwner(host: string, owner: string): Promise<Org | null> {
    return this.store.orgs.findOrgByOwner(ownerKey(host, owner));
  }

  /** A new token for the organization. The token is returned once; only its hash is stored. */
  async createToken(orgSlug: string, name: string = DEFAULT_TOKEN_NAME): Promise<{ token: string; record: ApiToken }> {
    const label = name.trim();
    if (label.length === 0 || label.length > MAX_TOKEN_NAME_LENGTH || /\p{Cc}/u.test(label)) {
      throw invalid('name', `a token name is 1 to ${MAX_TOKEN_NAME_LENGTH} printable characters`);
    }
    const org = await this.getOrg(orgSlug);
    const token = generateToken();
    const record: ApiToken = {
      id: this.newId(),
      orgId: org.id,
      name: label,
      hash: hashToken(token),
      prefix: displayPrefix(token),
      createdAt: this.clock.now().toISOString(),
      revokedAt: null,
      lastUsedAt: null,
    };
    await this.store.orgs.createToken(record);
    return { token, record };
  }

  /** The organization's tokens, oldest first. Records carry the hash; callers must not show it. */
  async listTokens(orgSlug: string): Promise<ApiToken[]> {
    const org = await this.getOrg(orgSlug);
    const tokens = await this.store.orgs.listTokens(org.id);
    return tokens.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** Revokes a token; revoking it again keeps the first revocation time. */
  async revokeToken(tokenId: string): Promise<{ record: ApiToken; alreadyRevoked: boolean }> {
    const before = await this.store.orgs.getToken(tokenId);
    if (!before) {
      throw new ServiceError(404, 'token_not_found', 'Token not found', `no token with id "${tokenId}"`);
    }
    await this.store.orgs.revokeToken(tokenId, this.clock.now().toISOString());
    const after = (await this.store.orgs.getToken(tokenId)) ?? before;
    return { record: after, alreadyRevoked: before.revokedAt !== null };
  }
}

function ownerTaken(key: string, slug: string): ServiceError {
  return new ServiceError(409, 'owner_taken', 'Owner belongs to another organization', `${key} already belongs to organization "${slug}"`);
}

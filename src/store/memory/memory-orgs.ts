import type { ApiToken, Org } from '../../domain/org.js';
import { ConflictError } from '../errors.js';
import type { OrgStore } from '../store.js';

/** Organizations and tokens in memory; copies in and out, as a real adapter. */
export class MemoryOrgTables implements OrgStore {
  private readonly orgs = new Map<string, Org>();
  /** ownerKey -> organization id. */
  private readonly owners = new Map<string, string>();
  private readonly tokens = new Map<string, ApiToken>();

  async createOrg(org: Org): Promise<void> {
    const owners = new Set(org.owners);
    if ([...this.orgs.values()].some((o) => o.slug === org.slug) || [...owners].some((o) => this.owners.has(o))) {
      throw new ConflictError(`organization ${org.slug} or one of its owners exists`);
    }
    this.orgs.set(org.id, copy(org));
    for (const owner of owners) this.owners.set(owner, org.id);
  }

  async getOrgById(id: string): Promise<Org | null> {
    return copy(this.orgs.get(id) ?? null);
  }

  async getOrgBySlug(slug: string): Promise<Org | null> {
    return copy([...this.orgs.values()].find((o) => o.slug === slug) ?? null);
  }

  async listOrgs(): Promise<Org[]> {
    return [...this.orgs.values()].sort((a, b) => a.slug.localeCompare(b.slug)).map((o) => copy(o));
  }

  async findOrgByOwner(ownerKey: string): Promise<Org | null> {
    const id = this.owners.get(ownerKey);
    return id === undefined ? null : this.getOrgById(id);
  }

  async addOrgOwner(orgId: string, ownerKey: string): Promise<void> {
    const org = this.orgs.get(orgId);
    if (!org) throw new Error(`organization ${orgId} does not exist`);
    const holder = this.owners.get(ownerKey);
    if (holder === orgId) return;
    if (holder !== undefined) throw new ConflictError(`${ownerKey} belongs to another organization`);
    this.owners.set(ownerKey, orgId);
    this.orgs.set(orgId, { ...org, owners: [...org.owners, ownerKey] });
  }

  async createToken(token: ApiToken): Promise<void> {
    if (this.tokens.has(token.id) || [...this.tokens.values()].some((t) => t.hash === token.hash)) {
      throw new ConflictError('a token with that id or hash exists');
    }
    this.tokens.set(token.id, copy(token));
  }

  async findTokenByHash(hash: string): Promise<ApiToken | null> {
    return copy([...this.tokens.values()].find((t) => t.hash === hash) ?? null);
  }

  async getToken(id: string): Promise<ApiToken | null> {
    return copy(this.tokens.get(id) ?? null);
  }

  async listTokens(orgId: string): Promise<ApiToken[]> {
    const mine = [...this.tokens.values()].filter((t) => t.orgId === orgId);
    return copy(mine.sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1)));
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    const token = this.tokens.get(id);
    if (!token) return false;
    if (!token.revokedAt) this.tokens.set(id, { ...token, revokedAt: at });
    return true;
  }

  async touchToken(id: string, at: string): Promise<void> {
    const token = this.tokens.get(id);
    if (token) this.tokens.set(id, { ...token, lastUsedAt: at });
  }
}

function copy<T>(value: T): T {
  return value === null ? value : structuredClone(value);
}

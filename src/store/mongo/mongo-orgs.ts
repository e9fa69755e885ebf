import type { Collection, Db } from 'mongodb';
import type { ApiToken, Org } from '../../domain/org.js';
import type { OrgStore } from '../store.js';
import { conflictOnDuplicate, findMany, findOne } from './collection-ops.js';

/** Organizations and their API tokens, stored as the domain objects themselves. */
export class MongoOrgs implements OrgStore {
  private readonly orgs: Collection<Org>;
  private readonly tokens: Collection<ApiToken>;

  constructor(db: Db) {
    this.orgs = db.collection('orgs');
    this.tokens = db.collection('tokens');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.orgs.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { slug: 1 }, unique: true },
        // A unique index on an array field is unique across documents: no owner in two orgs. The
        // filter leaves out orgs without owners, whose empty arrays would collide with each other.
        { key: { owners: 1 }, unique: true, partialFilterExpression: { owners: { $type: 'string' } } },
      ]),
      this.tokens.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { hash: 1 }, unique: true },
        { key: { orgId: 1, createdAt: 1, id: 1 } },
      ]),
    ]);
  }

  async createOrg(org: Org): Promise<void> {
    await conflictOnDuplicate(`organization ${org.slug} or one of its owners exists`, () =>
      this.orgs.insertOne({ ...org, owners: [...new Set(org.owners)] }),
    );
  }

  async getOrgById(id: string): Promise<Org | null> {
    return findOne(this.orgs, { id });
  }

  async getOrgBySlug(slug: string): Promise<Org | null> {
    return findOne(this.orgs, { slug });
  }

  async findOrgByOwner(ownerKey: string): Promise<Org | null> {
    return findOne(this.orgs, { owners: ownerKey });
  }

  async listOrgs(): Promise<Org[]> {
    return findMany(this.orgs, {}, { slug: 1 });
  }

  async addOrgOwner(orgId: string, ownerKey: string): Promise<void> {
    const result = await conflictOnDuplicate(`${ownerKey} belongs to another organization`, () =>
      this.orgs.updateOne({ id: orgId }, { $addToSet: { owners: ownerKey } }),
    );
    if (result.matchedCount === 0) throw new Error(`organization ${orgId} does not exist`);
  }

  async createToken(token: ApiToken): Promise<void> {
    await conflictOnDuplicate('a token with that id or hash exists', () => this.tokens.insertOne({ ...token }));
  }

  async findTokenByHash(hash: string): Promise<ApiToken | null> {
    return findOne(this.tokens, { hash });
  }

  async getToken(id: string): Promise<ApiToken | null> {
    return findOne(this.tokens, { id });
  }

  async listTokens(orgId: string): Promise<ApiToken[]> {
    return findMany(this.tokens, { orgId }, { createdAt: 1, id: 1 });
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    const result = await this.tokens.updateOne({ id, revokedAt: null }, { $set: { revokedAt: at } });
    if (result.matchedCount === 1) return true;
    return (await this.tokens.countDocuments({ id }, { limit: 1 })) === 1;
  }

  async touchToken(id: string, at: string): Promise<void> {
    await this.tokens.updateOne({ id }, { $set: { lastUsedAt: at } });
  }
}

import type Database from 'better-sqlite3';
import type { ApiToken, Org } from '../../domain/org.js';
import { ConflictError } from '../errors.js';
import type { OrgStore } from '../store.js';
import { parseDoc, parseDocs } from './json-docs.js';
import { asConflict } from './unique-conflict.js';

/** Organizations (`orgs`, `org_owners`) and their API tokens (`tokens`). */
export class SqliteOrgs implements OrgStore {
  private readonly stmt;
  private readonly createOrgTx;

  constructor(private readonly db: Database.Database) {
    this.stmt = {
      insertOrg: db.prepare('INSERT INTO orgs (id, slug, doc) VALUES (?, ?, ?)'),
      updateOrgDoc: db.prepare('UPDATE orgs SET doc = ? WHERE id = ?'),
      orgById: db.prepare('SELECT doc FROM orgs WHERE id = ?').pluck(),
      orgBySlug: db.prepare('SELECT doc FROM orgs WHERE slug = ?').pluck(),
      allOrgs: db.prepare('SELECT doc FROM orgs ORDER BY slug').pluck(),
      orgByOwner: db.prepare('SELECT o.doc FROM org_owners w JOIN orgs o ON o.id = w.org_id WHERE w.owner_key = ?').pluck(),
      ownerOrgId: db.prepare('SELECT org_id FROM org_owners WHERE owner_key = ?').pluck(),
      insertOwner: db.prepare('INSERT INTO org_owners (owner_key, org_id) VALUES (?, ?)'),

      insertToken: db.prepare('INSERT INTO tokens (id, org_id, hash, doc) VALUES (?, ?, ?, ?)'),
      tokenByHash: db.prepare('SELECT doc FROM tokens WHERE hash = ?').pluck(),
      tokenById: db.prepare('SELECT doc FROM tokens WHERE id = ?').pluck(),
      tokensByOrg: db.prepare("SELECT doc FROM tokens WHERE org_id = ? ORDER BY json_extract(doc, '$.createdAt'), id").pluck(),
      updateTokenDoc: db.prepare('UPDATE tokens SET doc = ? WHERE id = ?'),
    };
    this.createOrgTx = db.transaction((org: Org) => {
      this.stmt.insertOrg.run(org.id, org.slug, JSON.stringify(org));
      for (const owner of new Set(org.owners)) this.stmt.insertOwner.run(owner, org.id);
    });
  }

  async createOrg(org: Org): Promise<void> {
    try {
      this.createOrgTx(org);
    } catch (err) {
      throw asConflict(err, `organization ${org.slug} or one of its owners exists`);
    }
  }

  async getOrgById(id: string): Promise<Org | null> {
    return parseDoc<Org>(this.stmt.orgById.get(id));
  }

  async getOrgBySlug(slug: string): Promise<Org | null> {
    return parseDoc<Org>(this.stmt.orgBySlug.get(slug));
  }

  async findOrgByOwner(ownerKey: string): Promise<Org | null> {
    return parseDoc<Org>(this.stmt.orgByOwner.get(ownerKey));
  }

  async listOrgs(): Promise<Org[]> {
    return parseDocs<Org>(this.stmt.allOrgs.all());
  }

  async addOrgOwner(orgId: string, ownerKey: string): Promise<void> {
    this.db.transaction(() => {
      const org = parseDoc<Org>(this.stmt.orgById.get(orgId));
      if (!org) throw new Error(`organization ${orgId} does not exist`);
      const holder = this.stmt.ownerOrgId.get(ownerKey) as string | undefined;
      if (holder === orgId) return;
      if (holder !== undefined) throw new ConflictError(`${ownerKey} belongs to another organization`);
      this.stmt.insertOwner.run(ownerKey, orgId);
      this.stmt.updateOrgDoc.run(JSON.stringify({ ...org, owners: [...org.owners, ownerKey] }), orgId);
    }).immediate();
  }

  async createToken(token: ApiToken): Promise<void> {
    try {
      this.stmt.insertToken.run(token.id, token.orgId, token.hash, JSON.stringify(token));
    } catch (err) {
      throw asConflict(err, 'a token with that id or hash exists');
    }
  }

  async findTokenByHash(hash: string): Promise<ApiToken | null> {
    return parseDoc<ApiToken>(this.stmt.tokenByHash.get(hash));
  }

  async getToken(id: string): Promise<ApiToken | null> {
    return parseDoc<ApiToken>(this.stmt.tokenById.get(id));
  }

  async listTokens(orgId: string): Promise<ApiToken[]> {
    return parseDocs<ApiToken>(this.stmt.tokensByOrg.all(orgId));
  }

  async revokeToken(id: string, at: string): Promise<boolean> {
    return this.updateToken(id, (t) => (t.revokedAt ? t : { ...t, revokedAt: at }));
  }

  async touchToken(id: string, at: string): Promise<void> {
    this.updateToken(id, (t) => ({ ...t, lastUsedAt: at }));
  }

  private updateToken(id: string, change: (token: ApiToken) => ApiToken): boolean {
    return this.db.transaction(() => {
      const token = parseDoc<ApiToken>(this.stmt.tokenById.get(id));
      if (!token) return false;
      this.stmt.updateTokenDoc.run(JSON.stringify(change(token)), id);
      return true;
    }).immediate();
  }
}

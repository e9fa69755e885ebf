import { ConflictError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { aToken, anOrg, at } from './fixtures.js';

/** Organizations and their API tokens (called inside each adapter's contract suite, contract.ts). */
export function orgContract(open: () => Store): void {
  let store: Store;
  beforeEach(() => {
  store = open();
  });

  describe('organizations', () => {
    it('finds an organization by id, slug and each owner', async () => {
      const org = anOrg({ slug: 'acme', owners: ['github.com/acme', 'github.com/acme-labs'] });
      await store.orgs.createOrg(org);
      expect(await store.orgs.getOrgById(org.id)).toEqual(org);
      expect(await store.orgs.getOrgBySlug('acme')).toEqual(org);
      expect(await store.orgs.findOrgByOwner('github.com/acme-labs')).toEqual(org);
      expect(await store.orgs.getOrgBySlug('other')).toBeNull();
      expect(await store.orgs.getOrgById('missing')).toBeNull();
      expect(await store.orgs.findOrgByOwner('github.com/other')).toBeNull();
    });

    it('lists every organization by slug, with its owners', async () => {
      expect(await store.orgs.listOrgs()).toEqual([]);
      const zeta = anOrg({ slug: 'zeta', owners: ['github.com/zeta'] });
      const acme = anOrg({ slug: 'acme', owners: ['github.com/acme', 'github.com/acme-labs'] });
      await store.orgs.createOrg(zeta);
      await store.orgs.createOrg(acme);
      expect(await store.orgs.listOrgs()).toEqual([acme, zeta]);
    });

    it('refuses a taken slug and stores nothing of the refused organization', async () => {
      await store.orgs.createOrg(anOrg({ slug: 'acme', owners: ['github.com/acme'] }));
      const twin = anOrg({ slug: 'acme', owners: ['github.com/twin'] });
      await expect(store.orgs.createOrg(twin)).rejects.toThrow(ConflictError);
      expect(await store.orgs.getOrgById(twin.id)).toBeNull();
      expect(await store.orgs.findOrgByOwner('github.com/twin')).toBeNull();
    });

    it('refuses an owner that another organization has', async () => {
      const first = anOrg({ owners: ['github.com/acme'] });
      await store.orgs.createOrg(first);
      const second = anOrg({ owners: ['github.com/mine', 'github.com/acme'] });
      await expect(store.orgs.createOrg(second)).rejects.toThrow(ConflictError);
      expect(await store.orgs.getOrgById(second.id)).toBeNull();
      expect(await store.orgs.findOrgByOwner('github.com/mine')).toBeNull();
      expect((await store.orgs.findOrgByOwner('github.com/acme'))?.id).toBe(first.id);
    });

    it('keeps organizations without owners apart', async () => {
      const a = anOrg({ owners: [] });
      const b = anOrg({ owners: [] });
      await store.orgs.createOrg(a);
      await store.orgs.createOrg(b);
      expect(await store.orgs.getOrgById(b.id)).toEqual(b);
    });

    it('adds an owner once, and refuses one that another organization has', async () => {
      const acme = anOrg({ owners: ['github.com/acme'] });
      const other = anOrg({ owners: ['github.com/other'] });
      await store.orgs.createOrg(acme);
      await store.orgs.createOrg(other);

      await store.orgs.addOrgOwner(acme.id, 'github.com/acme-labs');
      await store.orgs.addOrgOwner(acme.id, 'github.com/acme-labs');
      expect((await store.orgs.getOrgById(acme.id))?.owners).toEqual(['github.com/acme', 'github.com/acme-labs']);
      expect((await store.orgs.findOrgByOwner('github.com/acme-labs'))?.id).toBe(acme.id);

      await expect(store.orgs.addOrgOwner(acme.id, 'github.com/other')).rejects.toThrow(ConflictError);
      expect((await store.orgs.findOrgByOwner('github.com/other'))?.id).toBe(other.id);
      expect((await store.orgs.getOrgById(acme.id))?.owners).not.toContain('github.com/other');
    });
  });

  describe('tokens', () => {
    it('finds a token by hash and by id', async () => {
      const token = aToken('org-1');
      await store.orgs.createToken(token);
      expect(await store.orgs.findTokenByHash(token.hash)).toEqual(token);
      expect(await store.orgs.getToken(token.id)).toEqual(token);
      expect(await store.orgs.findTokenByHash('0'.repeat(64))).toBeNull();
      expect(await store.orgs.getToken('missing')).toBeNull();
    });

    it('refuses a second token with the same hash', async () => {
      const token = aToken('org-1');
      await store.orgs.createToken(token);
      await expect(store.orgs.createToken(aToken('org-2', { hash: token.hash }))).rejects.toThrow(ConflictError);
    });

    it("lists an organization's tokens, oldest first, and no one else's", async () => {
      const later = aToken('org-1', { name: 'later', createdAt: at(5) });
      const earlier = aToken('org-1', { name: 'earlier', createdAt: at(1) });
      await store.orgs.createToken(later);
      await store.orgs.createToken(earlier);
      await store.orgs.createToken(aToken('org-2'));
      expect(await store.orgs.listTokens('org-1')).toEqual([earlier, later]);
      expect(await store.orgs.listTokens('org-3')).toEqual([]);
    });

    it('revokes once: revoking again keeps the first time', async () => {
      const token = aToken('org-1');
      await store.orgs.createToken(token);
      expect(await store.orgs.revokeToken(token.id, at(1))).toBe(true);
      expect(await store.orgs.revokeToken(token.id, at(2))).toBe(true);
      expect((await store.orgs.findTokenByHash(token.hash))?.revokedAt).toBe(at(1));
      expect(await store.orgs.revokeToken('missing', at(3))).toBe(false);
    });

    it('records when a token was last used', async () => {
      const token = aToken('org-1');
      await store.orgs.createToken(token);
      await store.orgs.touchToken(token.id, at(1));
      await store.orgs.touchToken(token.id, at(7));
      expect(await store.orgs.getToken(token.id)).toEqual({ ...token, lastUsedAt: at(7) });
    });
  });
}

import type { ApiToken, Org } from '../../domain/org.js';
import type { OrgStore } from '../../store/store.js';
import { hashToken } from './tokens.js';

/** Who is calling: an API token and the organization it acts for. */
export interface Caller {
  org: Org;
  token: ApiToken;
}

/**
 * API tokens as the doors check them: a presented token (or the token behind a web-page session) to
 * its caller, and the record of its last use. Only the token's hash is looked up.
 */
export class ApiAccess {
  constructor(private readonly orgs: Pick<OrgStore, 'findTokenByHash' | 'getToken' | 'getOrgById' | 'touchToken'>) {}

  /** The caller of a presented token; null when it is unknown or revoked, or its organization is gone. */
  async callerForToken(presented: string): Promise<Caller | null> {
    return this.callerOf(await this.orgs.findTokenByHash(hashToken(presented)));
  }

  async callerForTokenId(tokenId: string): Promise<Caller | null> {
    return this.callerOf(await this.orgs.getToken(tokenId));
  }

  recordUse(tokenId: string, at: Date): Promise<void> {
    return this.orgs.touchToken(tokenId, at.toISOString());
  }

  private async callerOf(token: ApiToken | null): Promise<Caller | null> {
    if (!token || token.revokedAt) return null;
    const org = await this.orgs.getOrgById(token.orgId);
    return org ? { org, token } : null;
  }
}

/** An organization owns repository owners on a host and holds API tokens. */
export interface Org {
  id: string;
  slug: string;
  /** `host/owner` pairs, lower case (ownerKey). */
  owners: string[];
  createdAt: string;
}

export interface ApiToken {
  id: string;
  orgId: string;
  name: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  hash: string;
  /** First characters of the token, for recognising it in `token list`. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServerStore } from '../store/store.js';
import { ServiceError } from './errors.js';

/** What a page token is bound to: it selects a page of this query and of no other. */
export interface PageQuery {
  repoKey: string;
  pageSize: number;
  /** What else the listing is of: `flaky`, `queue:<branch>`; absent for the quarantined tests (whose tokens predate the others). */
  scope?: string;
}

/** The store secret that signs page tokens, shared by every process using the store. */
export const PAGE_TOKEN_SECRET = 'page-token';
const FORMAT_VERSION = 1;
/** Issued tokens are far shorter; anything longer is rejected before any work is done. */
const MAX_TOKEN_LENGTH = 200;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function invalidPageToken(detail: string): ServiceError {
  return new ServiceError(400, 'invalid_page_token', 'Invalid page token', detail);
}

/**
 * Opaque page tokens: `<payload>.<mac>`, the payload holding the page index and the MAC
 * (HMAC-SHA256) covering the payload and the query. A token altered, made up, or taken from another
 * repository or page size fails the MAC check.
 */
export class PageTokens {
  constructor(private readonly key: string) {}

  static async fromStore(server: Pick<ServerStore, 'getOrCreateSecret'>): Promise<PageTokens> {
    return new PageTokens(await server.getOrCreateSecret(PAGE_TOKEN_SECRET, () => randomBytes(32).toString('base64url')));
  }

  issue(query: PageQuery, pageIndex: number): string {
    const payload = Buffer.from(JSON.stringify({ v: FORMAT_VERSION, page: pageIndex }), 'utf8').toString('base64url');
    return `${payload}.${this.mac(query, payload).toString('base64url')}`;
  }

  /** The page index the token selects. Throws ServiceError 400 `invalid_page_token`. */
  read(query: PageQuery, token: string): number {
    const parts = token.length <= MAX_TOKEN_LENGTH ? token.split('.') : [];
    const [payload, mac] = parts;
    if (parts.length !== 2 || !payload || !mac || !BASE64URL.test(payload) || !BASE64URL.test(mac)) {
      throw invalidPageToken('the page token is malformed; use a token from a previous page object, or "" for the first page');
    }
    // Compared as text, so that no other spelling of the same bytes is accepted either.
    const expected = Buffer.from(this.mac(query, payload).toString('base64url'), 'utf8');
    const given = Buffer.from(mac, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw invalidPageToken('the page token was altered or belongs to another query (repository or page size)');
    }
    const page = pageIndexOf(payload);
    if (page === null) throw invalidPageToken('the page token is malformed');
    return page;
  }

  private mac(query: PageQuery, payload: string): Buffer {
    return createHmac('sha256', this.key)
      .update(JSON.stringify(['page-token', query.repoKey, query.pageSize, payload, ...(query.scope === undefined ? [] : [query.scope])]), 'utf8')
      .digest();
  }
}

function pageIndexOf(payload: string): number | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof decoded !== 'object' || decoded === null) return null;
    const { v, page } = decoded as { v?: unknown; page?: unknown };
    return v === FORMAT_VERSION && typeof page === 'number' && Number.isSafeInteger(page) && page >= 0 ? page : null;
  } catch {
    return null;
  }
}

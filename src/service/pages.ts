import { ServiceError } from './errors.js';
import { PageTokens, type PageQuery } from './page-token.js';
import type { ServerStore } from '../store/store.js';

/** Seed 2.7. Tokens are `""` where there is no such page. */
export interface PageJson {
  total_rows: number;
  total_pages: number;
  page_index: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
}

export interface PageInput {
  pageSize: number;
  /** `""` selects the first page. */
  pageToken: string;
}

/** getQueue pages its enqueued pull requests; without a page query the first page of the largest size. */
export const MIN_QUEUE_PAGE_SIZE = 1;
export const MAX_QUEUE_PAGE_SIZE = 1000;

/**
 * The paging of a listing: reads the page a request selects and answers the seed's page object, with
 * page tokens bound to the query (see page-token.ts).
 */
export class Pages {
  private tokens: Promise<PageTokens> | null = null;

  constructor(
    private readonly server: Pick<ServerStore, 'getOrCreateSecret'>,
    private readonly sizes: { min: number; max: number },
  ) {}

  /** The page index a request selects. Throws ServiceError 400 for a bad size or token. */
  async pageIndex(query: PageQuery, input: PageInput): Promise<number> {
    const { pageSize } = input;
    const { min, max } = this.sizes;
    if (!Number.isSafeInteger(pageSize) || pageSize < min || pageSize > max) {
      throw new ServiceError(400, 'invalid_request', 'Invalid request', 'page_size is out of bounds', [
        { path: 'page_query.page_size', message: `must be an integer from ${min} to ${max}` },
      ]);
    }
    return input.pageToken ? (await this.pageTokens()).read(query, input.pageToken) : 0;
  }

  /** The rows of page `pageIndex` (a page past the last one is empty). */
  rowsOf(query: PageQuery, pageIndex: number): { offset: number; limit: number } {
    return { offset: Math.min(pageIndex * query.pageSize, Number.MAX_SAFE_INTEGER), limit: query.pageSize };
  }

  /** The seed 2.7 page object of page `pageIndex` of `total` rows. */
  async page(query: PageQuery, pageIndex: number, total: number): Promise<PageJson> {
    const tokens = await this.pageTokens();
    const totalPages = Math.ceil(total / query.pageSize);
    const lastIndex = totalPages - 1;
    const tokenFor = (index: number | null): string => (index === null ? '' : tokens.issue(query, index));
    return {
      total_rows: total,
      total_pages: totalPages,
      page_index: pageIndex,
      next_page_token: tokenFor(pageIndex < lastIndex ? pageIndex + 1 : null),
      prev_page_token: tokenFor(pageIndex > 0 && totalPages > 0 ? Math.min(pageIndex - 1, lastIndex) : null),
      last_page_token: tokenFor(totalPages > 0 ? lastIndex : null),
    };
  }

  private pageTokens(): Promise<PageTokens> {
    if (!this.tokens) {
      this.tokens = PageTokens.fromStore(this.server);
      // A store outage must not be remembered: the next call asks again.
      this.tokens.catch(() => (this.tokens = null));
    }
    return this.tokens;
  }
}

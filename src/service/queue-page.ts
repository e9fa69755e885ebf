import { ServiceError } from './errors.js';
import { PageTokens, type PageQuery } from './page-token.js';
import type { PageJson } from './quarantine-service.js';
import type { Store } from '../store/store.js';

/** getQueue pages its enqueued pull requests; without a page query the first page of the largest size. */
export const MIN_QUEUE_PAGE_SIZE = 1;
export const MAX_QUEUE_PAGE_SIZE = 1000;

export interface QueuePageInput {
  pageSize: number;
  /** `""` selects the first page. */
  pageToken: string;
}

/** Reads and issues the page tokens of getQueue, bound to the queue (repository and branch) and page size. */
export class QueuePages {
  private tokens: Promise<PageTokens> | null = null;

  constructor(private readonly store: Pick<Store, 'getOrCreateSecret'>) {}

  /** The page index a request selects. Throws ServiceError 400 for a bad size or token. */
  async pageIndex(query: PageQuery, input: QueuePageInput): Promise<number> {
    const { pageSize } = input;
    if (!Number.isSafeInteger(pageSize) || pageSize < MIN_QUEUE_PAGE_SIZE || pageSize > MAX_QUEUE_PAGE_SIZE) {
      throw new ServiceError(400, 'invalid_request', 'Invalid request', 'page_size is out of bounds', [
        { path: 'page_query.page_size', message: `must be an integer from ${MIN_QUEUE_PAGE_SIZE} to ${MAX_QUEUE_PAGE_SIZE}` },
      ]);
    }
    return input.pageToken ? (await this.pageTokens()).read(query, input.pageToken) : 0;
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
      this.tokens = PageTokens.fromStore(this.store);
      // A store outage must not be remembered: the next call asks again.
      this.tokens.catch(() => (this.tokens = null));
    }
    return this.tokens;
  }
}

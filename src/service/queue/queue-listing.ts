import type { Org } from '../../domain/org.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import type { ServerStore } from '../../store/store.js';
import type { QueueOverviewService, QueueSummary } from './queue-overview.js';
import { Pages, type PageInput, type PageJson } from '../pages.js';
import { assertOwnsRepo } from '../access/tenancy.js';

export const MIN_QUEUE_LIST_PAGE_SIZE = 1;
export const MAX_QUEUE_LIST_PAGE_SIZE = 100;
export const DEFAULT_QUEUE_LIST_PAGE_SIZE = 25;

/** A queue as POST /v1/listQueues shows it: the web page's summary without its reload counter. */
export type ListedQueue = Omit<QueueSummary, 'version'>;

/** POST /v1/listQueues: a page of the caller's queues (of one repository when asked), by repository and branch. */
export class QueueListing {
  private readonly pages: Pages;

  constructor(
    server: Pick<ServerStore, 'getOrCreateSecret'>,
    private readonly overview: Pick<QueueOverviewService, 'listQueues'>,
  ) {
    this.pages = new Pages(server, { min: MIN_QUEUE_LIST_PAGE_SIZE, max: MAX_QUEUE_LIST_PAGE_SIZE });
  }

  async list(org: Org, input: PageInput & { repo?: RepoRef }): Promise<{ queues: ListedQueue[]; page: PageJson }> {
    if (input.repo) assertOwnsRepo(org, input.repo);
    const key = input.repo ? repoKey(input.repo) : '';
    // Bound to the organization too: a token of one organization is no use to another.
    const query = { repoKey: key, pageSize: input.pageSize, scope: `queues:${org.id}` };
    const pageIndex = await this.pages.pageIndex(query, input);
    const all = (await this.overview.listQueues(org)).filter((q) => !input.repo || repoKey(q.repo) === key);
    const { offset, limit } = this.pages.rowsOf(query, pageIndex);
    const queues = all.slice(offset, offset + limit).map(({ version: _version, ...listed }) => listed);
    return { queues, page: await this.pages.page(query, pageIndex, all.length) };
  }
}

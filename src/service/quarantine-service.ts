import type { Org } from '../domain/org.js';
import type { QuarantineSetting, TestCase, TestStatus } from '../domain/quarantine.js';
import { ownerKey, repoKey, type RepoRef } from '../domain/repo.js';
import type { Store } from '../store/store.js';
import { forbidden, ServiceError } from './errors.js';
import { PageTokens, type PageQuery } from './page-token.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MIN_PAGE_SIZE = 1;
export const MAX_PAGE_SIZE = 100;

/** Seed 2.6, plus `status` and `quarantine_setting`. Absent values are null. */
export interface QuarantinedTestJson {
  name: string;
  parent: string | null;
  file: string | null;
  classname: string | null;
  codeowners: string[];
  quarantined_at: string | null;
  status_last_updated_at: string;
  test_case_id: string;
  variant: string | null;
  status: TestStatus;
  /** `never` only in the flaky listing: a quarantined test is never set to `never`. */
  quarantine_setting: QuarantineSetting;
}

/** Seed 2.7. Tokens are `""` where there is no such page. */
export interface PageJson {
  total_rows: number;
  total_pages: number;
  page_index: number;
  next_page_token: string;
  prev_page_token: string;
  last_page_token: string;
}

export interface ListQuarantinedInput {
  repo: RepoRef;
  orgUrlSlug: string;
  pageSize: number;
  /** `""` selects the first page. */
  pageToken: string;
}

/** The quarantined tests (the seed's listing), or every test that is flaky, broken or quarantined (the web page's). */
export type TestListing = 'quarantined' | 'flaky';

/** POST /flaky-tests/list-quarantined-tests. */
export class QuarantineService {
  private tokens: Promise<PageTokens> | null = null;

  constructor(private readonly store: Store) {}

  async list(org: Org, input: ListQuarantinedInput, listing: TestListing = 'quarantined'): Promise<{ quarantined_tests: QuarantinedTestJson[]; page: PageJson }> {
    if (input.orgUrlSlug !== org.slug) {
      throw forbidden(`org_url_slug "${input.orgUrlSlug}" is not the organization of this token`, 'org_url_slug');
    }
    if (!org.owners.includes(ownerKey(input.repo.host, input.repo.owner))) {
      throw forbidden(`${input.repo.host}/${input.repo.owner} is not owned by this organization`);
    }
    const { pageSize } = input;
    if (!Number.isSafeInteger(pageSize) || pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE) {
      throw new ServiceError(400, 'invalid_request', 'Invalid request', 'page_size is out of bounds', [
        { path: 'page_query.page_size', message: `must be an integer from ${MIN_PAGE_SIZE} to ${MAX_PAGE_SIZE}` },
      ]);
    }

    const query: PageQuery = { repoKey: repoKey(input.repo), pageSize, ...(listing === 'flaky' ? { scope: listing } : {}) };
    const tokens = await this.pageTokens();
    const pageIndex = input.pageToken ? tokens.read(query, input.pageToken) : 0;
    // A token past the last page (tests left quarantine since) reads as an empty page.
    const page = { offset: Math.min(pageIndex * pageSize, Number.MAX_SAFE_INTEGER), limit: pageSize };
    const { rows, total } = listing === 'flaky' ? await this.store.listFlakyTests(query.repoKey, page) : await this.store.listQuarantinedTests(query.repoKey, page);

    const totalPages = Math.ceil(total / pageSize);
    const lastIndex = totalPages - 1;
    const tokenFor = (index: number | null): string => (index === null ? '' : tokens.issue(query, index));
    return {
      quarantined_tests: rows.map(toJson),
      page: {
        total_rows: total,
        total_pages: totalPages,
        page_index: pageIndex,
        next_page_token: tokenFor(pageIndex < lastIndex ? pageIndex + 1 : null),
        prev_page_token: tokenFor(pageIndex > 0 && totalPages > 0 ? Math.min(pageIndex - 1, lastIndex) : null),
        last_page_token: tokenFor(totalPages > 0 ? lastIndex : null),
      },
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

function toJson(t: TestCase): QuarantinedTestJson {
  return {
    name: t.name,
    parent: t.parent ?? null,
    file: t.file ?? null,
    classname: t.classname ?? null,
    codeowners: t.codeowners ?? [],
    quarantined_at: t.quarantinedAt ?? null,
    status_last_updated_at: t.statusLastUpdatedAt,
    test_case_id: t.testCaseId,
    variant: t.variant ?? null,
    status: t.status,
    quarantine_setting: t.quarantineSetting,
  };
}

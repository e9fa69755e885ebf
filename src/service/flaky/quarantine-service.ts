import type { Org } from '../../domain/org.js';
import type { QuarantineSetting, TestCase, TestStatus } from '../../domain/quarantine.js';
import { ownerKey, repoKey, type RepoRef } from '../../domain/repo.js';
import type { ServerStore, TestCaseStore } from '../../store/store.js';
import { forbidden } from '../errors.js';
import type { PageQuery } from '../page-token.js';
import { Pages, type PageJson } from '../pages.js';

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
  private readonly pages: Pages;

  constructor(private readonly store: { tests: TestCaseStore; server: ServerStore }) {
    this.pages = new Pages(store.server, { min: MIN_PAGE_SIZE, max: MAX_PAGE_SIZE });
  }

  async list(org: Org, input: ListQuarantinedInput, listing: TestListing = 'quarantined'): Promise<{ quarantined_tests: QuarantinedTestJson[]; page: PageJson }> {
    if (input.orgUrlSlug !== org.slug) {
      throw forbidden(`org_url_slug "${input.orgUrlSlug}" is not the organization of this token`, 'org_url_slug');
    }
    if (!org.owners.includes(ownerKey(input.repo.host, input.repo.owner))) {
      throw forbidden(`${input.repo.host}/${input.repo.owner} is not owned by this organization`);
    }
    const query: PageQuery = { repoKey: repoKey(input.repo), pageSize: input.pageSize, ...(listing === 'flaky' ? { scope: listing } : {}) };
    const pageIndex = await this.pages.pageIndex(query, input);
    // A token past the last page (tests left quarantine since) reads as an empty page.
    const rows = this.pages.rowsOf(query, pageIndex);
    const found = listing === 'flaky' ? await this.store.tests.listFlakyTests(query.repoKey, rows) : await this.store.tests.listQuarantinedTests(query.repoKey, rows);
    return { quarantined_tests: found.rows.map(toJson), page: await this.pages.page(query, pageIndex, found.total) };
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

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE } from '../../service/flaky/quarantine-service.js';
import { body, pageQuerySchema, repoSchema } from './common.js';
import { nonEmptyString } from './fields.js';

/** Body of POST /flaky-tests/list-quarantined-tests (api.md, "Quarantined tests"). */
export const listQuarantinedTestsSchema = body({
  repo: repoSchema,
  org_url_slug: nonEmptyString(255, "the organization's slug; must be the token's organization"),
  page_query: pageQuerySchema(MIN_PAGE_SIZE, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, 'page size').describe('pagination options'),
});

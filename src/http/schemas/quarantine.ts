import { z } from 'zod';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE } from '../../service/quarantine-service.js';
import { body, repoSchema } from './common.js';
import { liberalInt, nonEmptyString, optionalField } from './fields.js';

/** Body of POST /flaky-tests/list-quarantined-tests (api.md, "Quarantined tests"). */
export const listQuarantinedTestsSchema = body({
  repo: repoSchema,
  org_url_slug: nonEmptyString(255, "the organization's slug; must be the token's organization"),
  page_query: z
    .object(
      {
        page_size: optionalField(liberalInt(MIN_PAGE_SIZE, MAX_PAGE_SIZE, `page size, default ${DEFAULT_PAGE_SIZE}`)).transform(
          (v) => v ?? DEFAULT_PAGE_SIZE,
        ),
        page_token: optionalField(z.string({ error: 'expected a string' }))
          .transform((v) => v ?? '')
          .describe('a token from a previous page object; empty or absent: the first page'),
      },
      { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an object {page_size, page_token}') },
    )
    .describe('pagination options'),
});

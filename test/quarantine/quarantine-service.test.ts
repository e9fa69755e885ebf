import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestCase } from '../../src/domain/quarantine.js';
import { ServiceError } from '../../src/service/errors.js';
import { PageTokens } from '../../src/service/page-token.js';
import { QuarantineService, type ListQuarantinedInput } from '../../src/service/flaky/quarantine-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { ACME, GLOBEX, testCase, WIDGETS, WIDGETS_KEY } from './fixtures.js';

let store: Store;
let service: QuarantineService;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
  service = new QuarantineService(store);
});
afterEach(async () => {
  await store.close();
});

const query = (overrides: Partial<ListQuarantinedInput> = {}): ListQuarantinedInput => ({
  repo: WIDGETS,
  orgUrlSlug: 'acme',
  pageSize: 25,
  pageToken: '',
  ...overrides,
});

/** Rejects with a ServiceError of this status and code. */
async function expectServiceError(promise: Promise<unknown>, status: number, code: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  expect(error).toMatchObject({ status, code });
}

/**
 * 53 quarantined tests, quarantined in groups of three at the same instant (ties), stored in an order
 * that is neither the listing order nor its reverse; plus tests that must not be listed.
 */
async function seedFiftyThree(): Promise<TestCase[]> {
  const cases = Array.from({ length: 53 }, (_, i) =>
    testCase(`tc-${String((i * 37) % 53).padStart(2, '0')}`, {
      quarantinedAt: new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 3) * 3_600_000).toISOString(),
    }),
  );
  for (const c of cases) await store.tests.upsertTestCase(c);
  await store.tests.upsertTestCase(testCase('healthy-not-quarantined', { status: 'healthy', quarantinedAt: null }));
  await store.tests.upsertTestCase(testCase('other-repo', { repoKey: 'github.com/acme/gadgets' }));
  return [...cases].sort(
    (a, b) => (b.quarantinedAt! < a.quarantinedAt! ? -1 : b.quarantinedAt! > a.quarantinedAt! ? 1 : 0) || (a.testCaseId < b.testCaseId ? -1 : 1),
  );
}

describe('QuarantineService.list pagination', () => {
  it('walks 53 tests in pages of 25: forward, back and to the last page', async () => {
    const expected = (await seedFiftyThree()).map((c) => c.testCaseId);

    const first = await service.list(ACME, query());
    expect(first.page).toMatchObject({ total_rows: 53, total_pages: 3, page_index: 0, prev_page_token: '' });
    expect(first.quarantined_tests).toHaveLength(25);
    expect(first.page.next_page_token).not.toBe('');
    expect(first.page.last_page_token).not.toBe('');

    const second = await service.list(ACME, query({ pageToken: first.page.next_page_token }));
    expect(second.page).toMatchObject({ total_rows: 53, total_pages: 3, page_index: 1 });
    expect(second.quarantined_tests).toHaveLength(25);

    const third = await service.list(ACME, query({ pageToken: second.page.next_page_token }));
    expect(third.page).toMatchObject({ page_index: 2, next_page_token: '' });
    expect(third.quarantined_tests).toHaveLength(3);

    const listed = [...first.quarantined_tests, ...second.quarantined_tests, ...third.quarantined_tests].map((t) => t.test_case_id);
    expect(listed).toEqual(expected);

    const back = await service.list(ACME, query({ pageToken: third.page.prev_page_token }));
    expect(back.quarantined_tests).toEqual(second.quarantined_tests);
    const backToStart = await service.list(ACME, query({ pageToken: back.page.prev_page_token }));
    expect(backToStart.quarantined_tests).toEqual(first.quarantined_tests);
    expect(backToStart.page.prev_page_token).toBe('');

    const last = await service.list(ACME, query({ pageToken: first.page.last_page_token }));
    expect(last.quarantined_tests).toEqual(third.quarantined_tests);
    expect(last.page.page_index).toBe(2);
  });

  it('lists the most recently quarantined first, ties in test_case_id order, the same way every time', async () => {
    for (const id of ['c', 'a', 'b']) await store.tests.upsertTestCase(testCase(id, { quarantinedAt: '2026-11-20T09:00:00.000Z' }));
    await store.tests.upsertTestCase(testCase('z-newest', { quarantinedAt: '2026-11-21T09:00:00.000Z' }));
    await store.tests.upsertTestCase(testCase('0-oldest', { quarantinedAt: '2026-11-19T09:00:00.000Z' }));

    const ids = async (pageSize: number) => {
      const all: string[] = [];
      let token = '';
      do {
        const { quarantined_tests, page } = await service.list(ACME, query({ pageSize, pageToken: token }));
        all.push(...quarantined_tests.map((t) => t.test_case_id));
        token = page.next_page_token;
      } while (token !== '');
      return all;
    };
    const order = ['z-newest', 'a', 'b', 'c', '0-oldest'];
    expect(await ids(100)).toEqual(order);
    expect(await ids(2)).toEqual(order);
    expect(await ids(1)).toEqual(order);
  });

  it('answers an empty repository with no rows, no pages and no tokens', async () => {
    await store.tests.upsertTestCase(testCase('elsewhere', { repoKey: 'github.com/acme/gadgets' }));
    const result = await service.list(ACME, query());
    expect(result).toEqual({
      quarantined_tests: [],
      page: { total_rows: 0, total_pages: 0, page_index: 0, next_page_token: '', prev_page_token: '', last_page_token: '' },
    });
  });

  it('gives one page with a last-page token and nothing before or after when everything fits', async () => {
    for (const id of ['a', 'b']) await store.tests.upsertTestCase(testCase(id));
    const { page } = await service.list(ACME, query());
    expect(page).toMatchObject({ total_rows: 2, total_pages: 1, page_index: 0, next_page_token: '', prev_page_token: '' });
    const again = await service.list(ACME, query({ pageToken: page.last_page_token }));
    expect(again.page.page_index).toBe(0);
    expect(again.quarantined_tests.map((t) => t.test_case_id)).toEqual(['a', 'b']);
  });

  it('answers a token past the last page (tests left quarantine since) with an empty page', async () => {
    const ordered = await seedFiftyThree();
    const { page } = await service.list(ACME, query());
    for (const c of ordered.slice(0, 30)) await store.tests.upsertTestCase({ ...c, quarantinedAt: null });

    const stale = await service.list(ACME, query({ pageToken: page.last_page_token }));
    expect(stale.quarantined_tests).toEqual([]);
    expect(stale.page).toMatchObject({ total_rows: 23, total_pages: 1, page_index: 2, next_page_token: '' });
    // Going back lands on the page that now is the last one.
    const back = await service.list(ACME, query({ pageToken: stale.page.prev_page_token }));
    expect(back.page.page_index).toBe(0);
    expect(back.quarantined_tests.map((t) => t.test_case_id)).toEqual(ordered.slice(30).map((c) => c.testCaseId));
  });

  it('accepts a token issued by another service instance on the same store', async () => {
    await seedFiftyThree();
    const { page } = await service.list(ACME, query());
    const other = await new QuarantineService(store).list(ACME, query({ pageToken: page.next_page_token }));
    expect(other.page.page_index).toBe(1);
  });
});

describe('QuarantineService.list elements', () => {
  it('has every seed field, absent ones as null and codeowners as []', async () => {
    await store.tests.upsertTestCase(
      testCase('bare', { parent: null, file: null, classname: null, variant: null, codeowners: [], name: 'bare test' }),
    );
    const [bare] = (await service.list(ACME, query())).quarantined_tests;
    expect(bare).toEqual({
      name: 'bare test',
      parent: null,
      file: null,
      classname: null,
      codeowners: [],
      quarantined_at: '2026-11-20T09:00:00.000Z',
      status_last_updated_at: '2026-11-20T08:00:00.000Z',
      test_case_id: 'bare',
      variant: null,
      status: 'flaky',
      quarantine_setting: 'auto',
    });
  });

  it('shows status and whether the test is quarantined by an `always` override', async () => {
    await store.tests.upsertTestCase(testCase('forced', { status: 'broken', quarantineSetting: 'always', quarantinedAt: '2026-11-21T00:00:00.000Z' }));
    await store.tests.upsertTestCase(testCase('auto'));
    const tests = (await service.list(ACME, query())).quarantined_tests;
    expect(tests.map((t) => [t.test_case_id, t.status, t.quarantine_setting])).toEqual([
      ['forced', 'broken', 'always'],
      ['auto', 'flaky', 'auto'],
    ]);
    expect(tests[1]).toMatchObject({
      parent: 'suite',
      file: 'src/suite.test.ts',
      classname: 'suite',
      variant: 'linux',
      codeowners: ['@acme/core'],
    });
  });
});

describe('QuarantineService.list page tokens', () => {
  beforeEach(async () => {
    await seedFiftyThree();
  });
  const nextToken = async () => (await service.list(ACME, query())).page.next_page_token;

  it.each([
    ['garbage', 'not-a-token'],
    ['empty parts', '.'],
    ['too many parts', 'a.b.c'],
    ['very long', 'a'.repeat(5000) + '.b'],
  ])('rejects a malformed token (%s) with 400 invalid_page_token', async (_, token) => {
    await expectServiceError(service.list(ACME, query({ pageToken: token })), 400, 'invalid_page_token');
  });

  it.each([10, 1])('rejects a token whose signature was altered (character %p from the end)', async (fromEnd) => {
    const token = await nextToken();
    const i = token.length - fromEnd;
    const altered = token.slice(0, i) + (token[i] === 'A' ? 'B' : 'A') + token.slice(i + 1);
    await expectServiceError(service.list(ACME, query({ pageToken: altered })), 400, 'invalid_page_token');
  });

  it('rejects a token whose page was changed', async () => {
    const [, mac] = (await nextToken()).split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, page: 2 })).toString('base64url');
    await expectServiceError(service.list(ACME, query({ pageToken: `${forged}.${mac}` })), 400, 'invalid_page_token');
  });

  it('rejects a token from another repository', async () => {
    const gadgets = { ...WIDGETS, name: 'gadgets' };
    for (let i = 0; i < 30; i++) await store.tests.upsertTestCase(testCase(`g-${i}`, { repoKey: 'github.com/acme/gadgets' }));
    const { page } = await service.list(ACME, query({ repo: gadgets }));
    expect(page.next_page_token).not.toBe('');
    await expectServiceError(service.list(ACME, query({ pageToken: page.next_page_token })), 400, 'invalid_page_token');
  });

  it('rejects a token from another page size', async () => {
    const { page } = await service.list(ACME, query({ pageSize: 10 }));
    await expectServiceError(service.list(ACME, query({ pageToken: page.next_page_token })), 400, 'invalid_page_token');
  });

  it('rejects a token signed with another key', async () => {
    const foreign = new PageTokens('some-other-key').issue({ repoKey: WIDGETS_KEY, pageSize: 25 }, 1);
    await expectServiceError(service.list(ACME, query({ pageToken: foreign })), 400, 'invalid_page_token');
  });

  it('treats the repository case-insensitively, like the git host', async () => {
    const token = await nextToken();
    const shouted = { host: 'GitHub.com', owner: 'ACME', name: 'Widgets' };
    const { page } = await service.list(ACME, query({ repo: shouted, pageToken: token }));
    expect(page.page_index).toBe(1);
  });

  it.each([0, 101, 2.5])('rejects page size %p with 400 invalid_request', async (pageSize) => {
    await expectServiceError(service.list(ACME, query({ pageSize })), 400, 'invalid_request');
  });
});

describe('QuarantineService.list access', () => {
  beforeEach(async () => {
    await store.tests.upsertTestCase(testCase('secret-test', { repoKey: 'github.com/globex/app' }));
  });

  it("answers 403 when org_url_slug is not the token's organization", async () => {
    await expectServiceError(service.list(ACME, query({ orgUrlSlug: 'globex' })), 403, 'forbidden');
  });

  it("answers 403 for a repository of another organization, whatever the slug", async () => {
    const globexApp = { host: 'github.com', owner: 'globex', name: 'app' };
    await expectServiceError(service.list(ACME, query({ repo: globexApp })), 403, 'forbidden');
    await expectServiceError(service.list(ACME, query({ repo: globexApp, orgUrlSlug: 'globex' })), 403, 'forbidden');
    // The owning organization does see it.
    const own = await service.list(GLOBEX, query({ repo: globexApp, orgUrlSlug: 'globex' }));
    expect(own.quarantined_tests.map((t) => t.test_case_id)).toEqual(['secret-test']);
  });

  it('serves any repository owner the organization owns', async () => {
    await store.tests.upsertTestCase(testCase('lab-test', { repoKey: 'github.com/acme-labs/rig' }));
    const { quarantined_tests } = await service.list(ACME, query({ repo: { host: 'github.com', owner: 'acme-labs', name: 'rig' } }));
    expect(quarantined_tests.map((t) => t.test_case_id)).toEqual(['lab-test']);
  });
});

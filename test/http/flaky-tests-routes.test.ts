import request from 'supertest';
import { testCaseId } from '../../src/flaky/test-case-id.js';
import { junitFixture } from '../fixtures/junit/fixtures.js';
import { ACME_REPO, expectProblem, post } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** JUnit with one suite "cart": each [name, outcome] a testcase (outcome passed|failed). */
function junit(cases: [string, 'passed' | 'failed'][]): string {
  const body = cases
    .map(([name, outcome]) => `<testcase classname="cart" name="${name}" file="src/cart.test.ts">${outcome === 'failed' ? '<failure>boom</failure>' : ''}</testcase>`)
    .join('');
  return `<?xml version="1.0"?><testsuites><testsuite name="cart">${body}</testsuite></testsuites>`;
}

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const upload = (body: object) => post(t, 'flaky-tests/upload', { repo: ACME_REPO, branch: 'feature', ...body });
const list = (page_query: object = {}) => post(t, 'flaky-tests/list-quarantined-tests', { repo: ACME_REPO, org_url_slug: 'acme', page_query });

describe('POST /v1/flaky-tests/upload and detection', () => {
  test('a fail and a pass on one commit: flaky, quarantined, listed with every seed field', async () => {
    const first = await upload({ commitSha: 'c1', uploadId: 'run-1', junitXml: junit([['adds', 'passed'], ['discounts', 'failed']]) });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ uploadId: 'run-1', commitSha: 'c1', tests: 2, failed: 1, skipped: 0, quarantinedFailures: 0, newlyFlaky: [], ignoredForDetection: false });

    t.clock.advance(60_000);
    const second = await upload({ commitSha: 'c1', uploadId: 'run-2', junitXml: [junit([['adds', 'passed'], ['discounts', 'passed']])] });
    expect(second.body.newlyFlaky).toHaveLength(1);
    const id = second.body.newlyFlaky[0];

    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.body.quarantined_tests).toEqual([
      {
        name: 'discounts',
        parent: 'cart',
        file: 'src/cart.test.ts',
        classname: 'cart',
        codeowners: [],
        quarantined_at: t.clock.now().toISOString(),
        status_last_updated_at: t.clock.now().toISOString(),
        test_case_id: id,
        variant: null,
        status: 'flaky',
        quarantine_setting: 'auto',
      },
    ]);
    expect(listed.body.page).toMatchObject({ total_rows: 1, total_pages: 1, page_index: 0, next_page_token: '' });

    // The next failure of that test is forgiven.
    const third = await upload({ commitSha: 'c2', junitXml: junit([['adds', 'passed'], ['discounts', 'failed']]) });
    expect(third.body).toMatchObject({ failed: 1, quarantinedFailures: 1, quarantinedFailedTests: [{ test_case_id: id, name: 'discounts' }] });

    const tc = await post(t, 'flaky-tests/getTestCase', { repo: ACME_REPO, testCaseId: id });
    expect(tc.body).toMatchObject({ status: 'flaky', quarantined: true });
    expect(tc.body.history).toEqual([
      expect.objectContaining({ kind: 'status', from: 'healthy', to: 'flaky', evidence: { commits: ['c1'], uploads: ['run-1', 'run-2'] } }),
      expect.objectContaining({ kind: 'quarantine', quarantined: true }),
    ]);
    expect(tc.body.recentResults.map((r: { commitSha: string; outcome: string }) => [r.commitSha, r.outcome])).toEqual([
      ['c2', 'failed'],
      ['c1', 'passed'],
      ['c1', 'failed'],
    ]);

    const config = await post(t, 'flaky-tests/getQuarantineConfig', {
      repo: ACME_REPO,
      tests: [{ file: 'src/cart.test.ts', classname: 'cart', parent: 'cart', name: 'discounts' }, { name: 'unknown' }],
    });
    expect(config.body).toEqual({ quarantined: [id] });
  });

  test('the same uploadId twice answers the first result and stores nothing more', async () => {
    const first = await upload({ commitSha: 'c1', uploadId: 'same', junitXml: junit([['discounts', 'failed']]) });
    const again = await upload({ commitSha: 'c1', uploadId: 'same', junitXml: junit([['discounts', 'passed']]) });
    expect(again.body).toEqual(first.body);
    expect((await list()).body.page.total_rows).toBe(0);
    const tc = await post(t, 'flaky-tests/getQuarantineConfig', { repo: ACME_REPO, tests: [{ file: 'src/cart.test.ts', classname: 'cart', parent: 'cart', name: 'discounts' }] });
    expect(tc.body).toEqual({ quarantined: [] });
  });

  test('malformed XML: 400 invalid_junit naming the file, line and column; nothing stored', async () => {
    await upload({ commitSha: 'c1', uploadId: 'u1', junitXml: junit([['discounts', 'failed']]) });
    const res = await upload({ commitSha: 'c1', uploadId: 'u2', junitXml: [junit([['discounts', 'passed']]), junitFixture('malformed.xml')] });
    expectProblem(res, 400, 'invalid_junit');
    expect(res.body.detail).toMatch(/junitXml\[1\].*line 5, column \d+/);
    // u2 was not stored: sending it again, well-formed, is a new upload that makes the test flaky.
    const retry = await upload({ commitSha: 'c1', uploadId: 'u2', junitXml: junit([['discounts', 'passed']]) });
    expect(retry.body.newlyFlaky).toHaveLength(1);
  });

  test('an XML body with the metadata in the query string', async () => {
    const res = await request(t.app)
      .post('/v1/flaky-tests/upload?repo=acme/widgets&repoHost=github.com&commitSha=c1&branch=main&variant=linux')
      .set('x-api-token', t.acme.token)
      .set('Content-Type', 'application/xml')
      .send(junitFixture('surefire.xml'));
    expect(res.status).toBe(200);
    // appliesDiscount and talksToDatabase passed on retry: flaky at once.
    expect(res.body).toMatchObject({ tests: 4, failed: 1, newlyFlaky: expect.any(Array) });
    expect(res.body.newlyFlaky).toHaveLength(2);
  });

  test('a body without testcase is accepted and says so', async () => {
    const res = await upload({ commitSha: 'c1', junitXml: '<testsuites/>' });
    expect(res.body).toMatchObject({ tests: 0, failed: 0, note: expect.stringContaining('no testcase') });
  });

  test('infrastructure protection: 21 of 25 failed is stored but changes nothing', async () => {
    const names = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const bad = await upload({ commitSha: 'c1', junitXml: junit(names.map((n, i) => [n, i < 21 ? 'failed' : 'passed'])) });
    expect(bad.body).toMatchObject({ tests: 25, failed: 21, ignoredForDetection: true });
    const good = await upload({ commitSha: 'c1', junitXml: junit(names.map((n) => [n, 'passed'])) });
    expect(good.body).toMatchObject({ newlyFlaky: [], ignoredForDetection: false });
    expect((await list()).body.page.total_rows).toBe(0);
  });

  test('more than 50,000 test cases: 413 naming the count', async () => {
    const many = `<testsuite name="s">${Array.from({ length: 50_001 }, (_, i) => `<testcase name="t${i}"/>`).join('')}</testsuite>`;
    const res = await upload({ commitSha: 'c1', junitXml: many });
    expectProblem(res, 413, 'payload_too_large');
    expect(res.body.detail).toContain('50001');
  });

  test('a body over 20 MiB, JSON or XML: 413', async () => {
    const huge = `<testsuites>${' '.repeat(20 * 1024 * 1024)}</testsuites>`;
    expectProblem(await upload({ commitSha: 'c1', junitXml: huge }), 413, 'payload_too_large');
    const xml = await request(t.app)
      .post('/v1/flaky-tests/upload?repo=acme/widgets&commitSha=c1')
      .set('x-api-token', t.acme.token)
      .set('Content-Type', 'application/xml')
      .send(huge);
    expectProblem(xml, 413, 'payload_too_large');
  });

  test("another organization's repository: 403", async () => {
    const res = await post(t, 'flaky-tests/upload', { repo: ACME_REPO, commitSha: 'c1', junitXml: '<testsuites/>' }, t.globex.token);
    expectProblem(res, 403, 'forbidden');
  });
});

describe('quarantine control and settings', () => {
  async function knownTest(): Promise<string> {
    await upload({ commitSha: 'c1', junitXml: junit([['discounts', 'failed']]) });
    const res = await upload({ commitSha: 'c1', junitXml: junit([['discounts', 'passed']]) });
    return res.body.newlyFlaky[0] as string;
  }

  test('never takes a flaky test out of quarantine; auto puts it back with a new quarantined_at; who and why recorded', async () => {
    const id = await knownTest();
    const quarantinedAt = (await list()).body.quarantined_tests[0].quarantined_at;
    t.clock.advance(60_000);
    const never = await post(t, 'flaky-tests/setQuarantineSetting', { repo: ACME_REPO, testCaseId: id, setting: 'NEVER', reason: 'we fix it today' });
    expect(never.body).toMatchObject({ quarantine_setting: 'never', quarantined: false, quarantined_at: null });
    expect((await list()).body.page.total_rows).toBe(0);

    t.clock.advance(60_000);
    const auto = await post(t, 'flaky-tests/setQuarantineSetting', { repo: ACME_REPO, testCaseId: id, setting: 'auto' });
    expect(auto.body.quarantined_at).not.toBe(quarantinedAt);
    expect(auto.body.quarantined_at).toBe(t.clock.now().toISOString());
    expect(auto.body.history).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'quarantine_setting', from: 'auto', to: 'never', by: 'test', reason: 'we fix it today' })]),
    );
  });

  const idOf = (name: string) => testCaseId('github.com/acme/widgets', { file: 'src/cart.test.ts', classname: 'cart', parent: 'cart', name, variant: null });

  test('always quarantines a healthy test; listed as quarantine_setting always; unknown test 404', async () => {
    await upload({ commitSha: 'c1', junitXml: junit([['adds', 'passed']]) });
    const res = await post(t, 'flaky-tests/setQuarantineSetting', { repo: ACME_REPO, testCaseId: idOf('adds'), setting: 'always' });
    expect(res.body).toMatchObject({ status: 'healthy', quarantined: true, quarantine_setting: 'always' });
    expect((await list()).body.quarantined_tests).toEqual([expect.objectContaining({ name: 'adds', status: 'healthy', quarantine_setting: 'always' })]);
    // A failure of it is forgiven.
    expect((await upload({ commitSha: 'c2', junitXml: junit([['adds', 'failed']]) })).body.quarantinedFailures).toBe(1);
    expectProblem(await post(t, 'flaky-tests/setQuarantineSetting', { repo: ACME_REPO, testCaseId: 'nope', setting: 'always' }), 404, 'test_case_not_found');
  });

  test('settings: defaults, update with bounds, autoQuarantine off stops auto quarantine', async () => {
    const defaults = await post(t, 'flaky-tests/getSettings', { repo: ACME_REPO });
    expect(defaults.body).toEqual({
      repo: ACME_REPO,
      flakyWindowDays: 14,
      flakyMinEvents: 1,
      brokenRuns: 5,
      flakyRecoveryDays: 7,
      autoQuarantine: true,
      targetBranches: ['main', 'master'],
    });
    expectProblem(await post(t, 'flaky-tests/updateSettings', { repo: ACME_REPO, brokenRuns: 0 }), 400, 'invalid_request');
    const updated = await post(t, 'flaky-tests/updateSettings', { repo: ACME_REPO, autoQuarantine: false, brokenRuns: '3' });
    expect(updated.body).toMatchObject({ autoQuarantine: false, brokenRuns: 3, flakyWindowDays: 14 });
    const id = await knownTest();
    expect((await list()).body.page.total_rows).toBe(0);
    // Turning it back on quarantines the flaky test at once.
    await post(t, 'flaky-tests/updateSettings', { repo: ACME_REPO, autoQuarantine: true });
    expect((await list()).body.quarantined_tests.map((q: { test_case_id: string }) => q.test_case_id)).toEqual([id]);
    await post(t, 'flaky-tests/updateSettings', { repo: ACME_REPO, autoQuarantine: false });
    expect((await list()).body.page.total_rows).toBe(0);
  });

  test('broken after brokenRuns failures in a row on the target branch, never auto-quarantined; a pass heals it', async () => {
    for (let i = 1; i <= 5; i++) await upload({ commitSha: `m${i}`, branch: 'main', junitXml: junit([['adds', 'passed'], ['discounts', 'failed']]) });
    const res = await upload({ commitSha: 'm6', branch: 'main', junitXml: junit([['discounts', 'failed']]) });
    expect(res.body).toMatchObject({ failed: 1, quarantinedFailures: 0 });
    expect((await list()).body.page.total_rows).toBe(0);
    const broken = await post(t, 'flaky-tests/getTestCase', { repo: ACME_REPO, testCaseId: idOf('discounts') });
    expect(broken.body).toMatchObject({ status: 'broken', quarantined: false });
    expect(broken.body.history[0]).toMatchObject({ kind: 'status', from: 'healthy', to: 'broken', evidence: { commits: ['m1', 'm2', 'm3', 'm4', 'm5'] } });
    // A pass on main ends it (fail-then-pass on consecutive main commits is a flaky event, too).
    await upload({ commitSha: 'm7', branch: 'main', junitXml: junit([['discounts', 'passed']]) });
    expect((await post(t, 'flaky-tests/getTestCase', { repo: ACME_REPO, testCaseId: idOf('discounts') })).body.status).toBe('flaky');
  });
});

describe('list-quarantined-tests paging over detected tests', () => {
  test('30 flaky tests in pages of 25: 2 pages, tokens lead forward and back', async () => {
    const names = Array.from({ length: 30 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    await upload({ commitSha: 'c1', junitXml: junit(names.map((n) => [n, 'failed'])) });
    t.clock.advance(1000);
    // 30 of 30 failed: infrastructure protection. Retries inside one upload instead:
    await upload({ commitSha: 'c2', junitXml: junit(names.flatMap((n): [string, 'passed' | 'failed'][] => [[n, 'failed'], [n, 'passed']])) });
    const first = await list();
    expect(first.body.page).toMatchObject({ total_rows: 30, total_pages: 2, page_index: 0, prev_page_token: '' });
    expect(first.body.quarantined_tests).toHaveLength(25);
    const second = await list({ page_token: first.body.page.next_page_token });
    expect(second.body.quarantined_tests).toHaveLength(5);
    expect(second.body.page).toMatchObject({ page_index: 1, next_page_token: '' });
    const ids = [...first.body.quarantined_tests, ...second.body.quarantined_tests].map((q: { test_case_id: string }) => q.test_case_id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toEqual([...ids].sort());
  });
});

describe('metrics', () => {
  test("the queue's repository's flaky, broken and quarantined counts", async () => {
    await post(t, 'createQueue', { repo: ACME_REPO, targetBranch: 'main' });
    await upload({ commitSha: 'c1', junitXml: junit([['adds', 'failed'], ['discounts', 'failed']]) });
    await upload({ commitSha: 'c1', junitXml: junit([['adds', 'passed'], ['discounts', 'passed']]) });
    await post(t, 'flaky-tests/setQuarantineSetting', {
      repo: ACME_REPO,
      testCaseId: testCaseId('github.com/acme/widgets', { file: 'src/cart.test.ts', classname: 'cart', parent: 'cart', name: 'adds', variant: null }),
      setting: 'never',
    });
    const res = await request(t.app).get('/v1/getMergeQueueMetrics').set('x-api-token', t.acme.token);
    const labels = '{repo="acme/widgets",branch="main",queue_type="main"}';
    expect(res.text).toContain(`mq_flaky_tests_current${labels} 2`);
    expect(res.text).toContain(`mq_broken_tests_current${labels} 0`);
    expect(res.text).toContain(`mq_quarantined_tests_current${labels} 1`);
  });
});

test('openapi.json documents the upload with both body types and every flaky-test operation', async () => {
  const doc = (await request(t.app).get('/v1/openapi.json')).body as { paths: Record<string, { post?: { requestBody: { content: object } } }> };
  expect(Object.keys(doc.paths['/v1/flaky-tests/upload']!.post!.requestBody.content)).toEqual(['application/json', 'application/xml']);
  for (const op of ['getSettings', 'updateSettings', 'setQuarantineSetting', 'getTestCase', 'getQuarantineConfig', 'list-quarantined-tests']) {
    expect(doc.paths[`/v1/flaky-tests/${op}`]?.post).toBeDefined();
  }
});

import request from 'supertest';
import { ACME_REPO, expectProblem, GLOBEX_REPO, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/**
 * The wiring of the two routes whose content other modules produce (src/metrics, the
 * QuarantineService): the HTTP layer's part is auth, validation, tenancy and the content type.
 */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  await post(t, 'createQueue', queueRef());
  await post(t, 'submitPullRequest', prRef(1));
  await post(t, 'createQueue', queueRef('main', GLOBEX_REPO), t.globex.token);
});
afterEach(async () => {
  await t.close();
});

describe('GET /v1/getMergeQueueMetrics', () => {
  const metrics = (query = '', token = t.acme.token) => request(t.app).get(`/v1/getMergeQueueMetrics${query}`).set('x-api-token', token);

  test("answers the organization's metrics as Prometheus text 0.0.4", async () => {
    const res = await metrics();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toMatch(/^mq_depth_current\{repo="acme\/widgets",branch="main",queue_type="main"\} 1$/m);
    // Only this organization's repositories.
    expect(res.text).not.toContain('globex');
  });

  test('repo with repoHost narrows to that repository', async () => {
    await post(t, 'createQueue', queueRef('main', { host: 'github.com', owner: 'acme-labs', name: 'tools' }));
    const all = await metrics();
    expect(all.text).toContain('repo="acme-labs/tools"');
    const one = await metrics('?repo=acme/widgets&repoHost=github.com');
    expect(one.status).toBe(200);
    expect(one.text).toContain('repo="acme/widgets"');
    expect(one.text).not.toContain('repo="acme-labs/tools"');
  });
});

describe('POST /v1/flaky-tests/list-quarantined-tests', () => {
  const list = (body: unknown, token = t.acme.token) => post(t, 'flaky-tests/list-quarantined-tests', body, token);

  test('answers a page (empty here) with the seed page fields; page_size defaults to 25', async () => {
    const res = await list({ repo: ACME_REPO, org_url_slug: 'acme', page_query: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      quarantined_tests: [],
      page: { total_rows: 0, total_pages: 0, page_index: 0, next_page_token: '', prev_page_token: '', last_page_token: '' },
    });
  });

  test('page_size 1–100 (a digit string too); outside that, 400 naming page_query.page_size', async () => {
    expect((await list({ repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_size: '100' } })).status).toBe(200);
    for (const size of [0, 101, -5, 'ten']) {
      const res = await list({ repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_size: size } });
      expectProblem(res, 400, 'invalid_request');
      expect(res.body.errors).toEqual([{ path: 'page_query.page_size', message: expect.any(String) }]);
    }
  });

  test("403 when org_url_slug is not the token's organization", async () => {
    expectProblem(await list({ repo: ACME_REPO, org_url_slug: 'globex', page_query: {} }), 403, 'forbidden');
  });

  test('400 invalid_page_token for a token that was not issued for this query', async () => {
    expectProblem(await list({ repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_token: 'bm9wZQ.bm9wZQ' } }), 400, 'invalid_page_token');
  });
});

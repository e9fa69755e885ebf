import request from 'supertest';
import { ACME_REPO, expectProblem, post, queueRef, uiSignIn } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** The web page's session: how a sign-in is kept, what a change needs, what another organization sees. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  expect((await post(t, 'createQueue', queueRef())).status).toBe(200);
});
afterEach(async () => {
  await t.close();
});

const signIn = (token: string) => uiSignIn(t, token);

const QUEUE_QUERY = { repo: 'github.com/acme/widgets', branch: 'main' };

test('the page and its files are served by the service itself, with a strict content policy', async () => {
  const page = await request(t.app).get('/ui/');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<script type="module" src="/ui/app.js">');
  expect(page.headers['content-security-policy']).toContain("default-src 'self'");
  expect((await request(t.app).get('/ui/app.js')).status).toBe(200);
  expect((await request(t.app).get('/ui/app.css')).status).toBe(200);
});

test('signing in sets an HttpOnly, SameSite=Strict cookie that holds no token; a wrong token gets 401', async () => {
  expect((await request(t.app).post('/ui/api/session').send({ token: 'mq_wrong' })).status).toBe(401);
  expect((await request(t.app).post('/ui/api/session').send({ token: t.revokedToken })).status).toBe(401);
  const { setCookie } = await signIn(t.acme.token);
  expect(setCookie).toMatch(/^mq_session=[\w-]{40,};/);
  expect(setCookie).toContain('HttpOnly');
  expect(setCookie).toContain('SameSite=Strict');
  expect(setCookie).not.toContain(t.acme.token);
});

test('without a session the data is 401; with one it lists only the organization’s own queues', async () => {
  expect((await request(t.app).get('/ui/api/queues')).status).toBe(401);
  const acme = await signIn(t.acme.token);
  const mine = await request(t.app).get('/ui/api/queues').set('Cookie', acme.cookie);
  expect(mine.body.queues.map((q: { repo: { name: string }; branch: string }) => `${q.repo.name}:${q.branch}`)).toEqual(['widgets:main']);
  const globex = await signIn(t.globex.token);
  expect((await request(t.app).get('/ui/api/queues').set('Cookie', globex.cookie)).body.queues).toEqual([]);
  expect((await request(t.app).get('/ui/api/queue').query(QUEUE_QUERY).set('Cookie', globex.cookie)).status).toBe(403);
  const pause = await request(t.app).post('/ui/api/queue/state').set('Cookie', globex.cookie).set('x-csrf-token', globex.csrfToken).send({ ...QUEUE_QUERY, state: 'paused' });
  expect(pause.status).toBe(403);
});

test('a change needs the session’s CSRF token', async () => {
  const { cookie, csrfToken } = await signIn(t.acme.token);
  const change = () => request(t.app).post('/ui/api/queue/state').set('Cookie', cookie).send({ ...QUEUE_QUERY, state: 'paused' });
  expect((await change()).status).toBe(403);
  expect((await change().set('x-csrf-token', 'forged')).status).toBe(403);
  const ok = await change().set('x-csrf-token', csrfToken);
  expect(ok.status).toBe(200);
  expect(ok.body.queue.state).toBe('paused');
});

test('sign out ends the session; revoking the token ends it too', async () => {
  const a = await signIn(t.acme.token);
  expect((await request(t.app).delete('/ui/api/session').set('Cookie', a.cookie).set('x-csrf-token', a.csrfToken)).status).toBe(200);
  expect((await request(t.app).get('/ui/api/queues').set('Cookie', a.cookie)).status).toBe(401);
  const b = await signIn(t.acme.token);
  await t.store.orgs.revokeToken(t.acme.tokenId, new Date().toISOString());
  expect((await request(t.app).get('/ui/api/queues').set('Cookie', b.cookie)).status).toBe(401);
});

test('the flaky-test list is the organization’s own, paged with tokens that fit only it', async () => {
  for (let i = 0; i < 21; i++) {
    await t.store.tests.upsertTestCase({
      testCaseId: `tc-${i}`, repoKey: 'github.com/acme/widgets', name: `test ${i}`, parent: null, file: null, classname: null, variant: null,
      codeowners: [], status: 'flaky', statusLastUpdatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(), quarantineSetting: 'never', quarantinedAt: null,
    });
  }
  const acme = await signIn(t.acme.token);
  const list = (page?: string) => request(t.app).get('/ui/api/flaky-tests').query({ repo: QUEUE_QUERY.repo, ...(page === undefined ? {} : { page }) }).set('Cookie', acme.cookie);
  const first = await list();
  expect(first.status).toBe(200);
  expect(first.body.quarantined_tests.map((x: { name: string }) => x.name).slice(0, 2)).toEqual(['test 20', 'test 19']);
  expect(first.body.quarantined_tests[0].quarantine_setting).toBe('never');
  expect(first.body.page).toMatchObject({ total_rows: 21, total_pages: 2, page_index: 0 });
  const second = await list(first.body.page.next_page_token);
  expect(second.body.quarantined_tests.map((x: { name: string }) => x.name)).toEqual(['test 0']);

  // Its tokens select pages of this list only: the quarantined listing refuses them, and nonsense is a 400.
  const quarantined = await post(t, 'flaky-tests/list-quarantined-tests', { repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_size: 20, page_token: first.body.page.next_page_token } });
  expectProblem(quarantined, 400, 'invalid_page_token');
  expectProblem(await list('not.a-token'), 400, 'invalid_page_token');
  expect((await list('x'.repeat(201))).status).toBe(400);

  const globex = await signIn(t.globex.token);
  expect((await request(t.app).get('/ui/api/flaky-tests').query({ repo: QUEUE_QUERY.repo }).set('Cookie', globex.cookie)).status).toBe(403);
});

describe('a bad sign-in body is a 4xx problem naming what is wrong, and the token in it is never logged', () => {
  const TOKEN_MARKER = 'mq_t0ken-marker-in-a-broken-body';
  test.each([
    ['malformed JSON', { 'content-type': 'application/json' }, `{"token": "${TOKEN_MARKER}"`, 400, 'invalid_json', '(body)'],
    ['a body over 16 KB', { 'content-type': 'application/json' }, JSON.stringify({ token: TOKEN_MARKER, pad: 'x'.repeat(17 * 1024) }), 413, 'payload_too_large', '(body)'],
    ['charset=utf-16', { 'content-type': 'application/json; charset=utf-16' }, `{"token": "${TOKEN_MARKER}"}`, 415, 'unsupported_media_type', 'Content-Type'],
    ['an unknown content-encoding', { 'content-type': 'application/json', 'content-encoding': 'zstd-ish' }, `{"token": "${TOKEN_MARKER}"}`, 415, 'unsupported_media_type', 'Content-Encoding'],
  ])('%s', async (_name, headers, body, status, code, field) => {
    const res = await request(t.app).post('/ui/api/session').set(headers).send(body);
    expectProblem(res, status, code);
    expect(res.body.errors[0].path).toBe(field);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN_MARKER);
    expect(t.rawLog()).not.toContain(TOKEN_MARKER);
  });
});

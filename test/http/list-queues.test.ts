import { ACME_REPO, expectProblem, GLOBEX_REPO, post, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** POST /v1/listQueues: the organization's queues, paged like the quarantine listing, never another organization's. */

let t: TestApp;
const TOOLS = { host: 'github.com', owner: 'acme', name: 'tools' };
beforeEach(async () => {
  t = await createTestApp();
  for (const [branch, repo] of [['main', ACME_REPO], ['release', ACME_REPO], ['main', TOOLS]] as const) {
    expect((await post(t, 'createQueue', queueRef(branch, repo))).status).toBe(200);
  }
  expect((await post(t, 'createQueue', queueRef('main', GLOBEX_REPO), t.globex.token)).status).toBe(200);
  await post(t, 'submitPullRequest', { ...queueRef('release'), pr: { number: 7 } });
});
afterEach(async () => {
  await t.close();
});

const names = (body: { queues: { repo: { name: string }; branch: string }[] }) => body.queues.map((q) => `${q.repo.name}:${q.branch}`);

test("lists the token's organization's queues by repository and branch, with state and depth", async () => {
  const res = await post(t, 'listQueues', {});
  expect(res.status).toBe(200);
  expect(names(res.body)).toEqual(['tools:main', 'widgets:main', 'widgets:release']);
  expect(res.body.queues[2]).toEqual(expect.objectContaining({ repo: ACME_REPO, branch: 'release', state: 'running', mode: 'single', depth: 1 }));
  expect(res.body.page).toMatchObject({ total_rows: 3, total_pages: 1, page_index: 0, next_page_token: '' });
  expect(names((await post(t, 'listQueues', {}, t.globex.token)).body)).toEqual(['gadgets:main']);
});

test('pages follow their tokens; a token from another query is refused', async () => {
  const first = await post(t, 'listQueues', { page_query: { page_size: 2 } });
  expect(names(first.body)).toEqual(['tools:main', 'widgets:main']);
  const second = await post(t, 'listQueues', { page_query: { page_size: 2, page_token: first.body.page.next_page_token } });
  expect(names(second.body)).toEqual(['widgets:release']);
  expect(second.body.page).toMatchObject({ page_index: 1, next_page_token: '' });
  const foreign = await post(t, 'listQueues', { page_query: { page_size: 2, page_token: first.body.page.next_page_token } }, t.globex.token);
  expectProblem(foreign, 400, 'invalid_page_token');
  expectProblem(await post(t, 'listQueues', { page_query: { page_size: 101 } }), 400, 'invalid_request');
});

test("one repository's queues; another organization's repository is 403; a misspelled field is 400", async () => {
  expect(names((await post(t, 'listQueues', { repo: TOOLS })).body)).toEqual(['tools:main']);
  expectProblem(await post(t, 'listQueues', { repo: GLOBEX_REPO }), 403, 'forbidden');
  const typo = await post(t, 'listQueues', { repository: ACME_REPO });
  expectProblem(typo, 400, 'invalid_request');
  expect(typo.body.errors).toEqual([{ path: 'repository', message: 'unknown field; did you mean repo?' }]);
});

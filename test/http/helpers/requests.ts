import request from 'supertest';
import type { TestApp } from './test-app.js';

export const ACME_REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
export const GLOBEX_REPO = { host: 'github.com', owner: 'globex', name: 'gadgets' };

export function queueRef(branch = 'main', repo: object = ACME_REPO) {
  return { repo, targetBranch: branch };
}

export function prRef(number: number, branch = 'main', repo: object = ACME_REPO) {
  return { ...queueRef(branch, repo), pr: { number } };
}

/** POST /v1/<op> with a JSON body and acme's token (unless another is given; null sends none). */
export function post(t: TestApp, op: string, body: unknown, token: string | null = t.acme.token) {
  const req = request(t.app).post(`/v1/${op}`).set('Content-Type', 'application/json');
  if (token !== null) req.set('x-api-token', token);
  return req.send(JSON.stringify(body));
}

/** Signs in to the web page with `token`: its session cookie (`name=value`) and CSRF token, and the Set-Cookie header. */
export async function uiSignIn(t: TestApp, token: string): Promise<{ cookie: string; csrfToken: string; setCookie: string }> {
  const res = await request(t.app).post('/ui/api/session').send({ token });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
  const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0] ?? '';
  return { cookie: setCookie.split(';')[0]!, csrfToken: res.body.csrfToken as string, setCookie };
}

/** Everything a request could have changed: queues (with entries and runs) and the archive of acme's queues. */
export async function storeSnapshot(t: TestApp): Promise<string> {
  const queues = await t.store.queues.listQueues({});
  const archived = await Promise.all(
    queues.map(async (q) => ({ runs: await t.store.queues.archivedRuns(q.id, {}), latest1: await t.store.queues.latestArchivedEntry(q.id, 1) })),
  );
  const targets = await t.store.targets.getImpactedTargets('github.com/acme/widgets', 1, 'sha-1');
  return JSON.stringify({ queues, archived, targets });
}

export function expectProblem(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({ type: 'about:blank', title: expect.any(String), status, code, detail: expect.any(String), errors: expect.any(Array) }),
  );
}

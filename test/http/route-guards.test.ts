import request from 'supertest';
import { generateToken } from '../../src/service/access/tokens.js';
import { listen, postDeclaredLength } from './helpers/raw-http.js';
import { ACME_REPO, expectProblem, GLOBEX_REPO, post, prRef, queueRef, storeSnapshot } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/**
 * Every POST route refuses what it must refuse — missing/unknown/revoked token, another
 * organization's repository, missing fields, wrong types, broken JSON, other content types,
 * oversized bodies — with problem+json, and changes nothing in the store when it does.
 */

const MiB = 1024 * 1024;

interface RouteCase {
  op: string;
  /** A body the route accepts; for the writing routes, one that would change the store. */
  valid: () => Record<string, unknown>;
  /** Field paths whose removal must be reported (as that path). */
  required: string[];
  /** [path, wrong value]: each must be reported at that path. */
  wrongTypes: [string, unknown][];
  /** Accepted with the valid body (200), or the status the valid body gets in this setup. */
  validStatus: number;
}

const repoFields = ['repo', 'repo.host', 'repo.owner', 'repo.name', 'targetBranch'];
const repoWrongTypes: [string, unknown][] = [
  ['repo', 'acme/widgets'],
  ['repo.owner', 7],
  ['targetBranch', 42],
  ['targetBranch', ''],
];

const ROUTES: RouteCase[] = [
  {
    op: 'submitPullRequest',
    valid: () => ({ ...prRef(2), priority: 'high' }),
    required: [...repoFields, 'pr', 'pr.number'],
    wrongTypes: [...repoWrongTypes, ['pr.number', 'two'], ['pr.number', 0], ['pr.number', 1.5], ['priority', 256], ['priority', 'soon'], ['noBatch', 'yes']],
    validStatus: 200,
  },
  {
    op: 'cancelPullRequest',
    valid: () => prRef(1),
    required: [...repoFields, 'pr', 'pr.number'],
    wrongTypes: [...repoWrongTypes, ['pr', 1], ['pr.number', -3]],
    validStatus: 200,
  },
  {
    op: 'restartTestsOnPullRequest',
    valid: () => prRef(1),
    required: [...repoFields, 'pr', 'pr.number'],
    wrongTypes: [...repoWrongTypes, ['pr.number', true]],
    validStatus: 409, // PR 1 is NOT_READY
  },
  {
    op: 'getSubmittedPullRequest',
    valid: () => prRef(1),
    required: [...repoFields, 'pr', 'pr.number'],
    wrongTypes: [...repoWrongTypes, ['pr.number', null]],
    validStatus: 200,
  },
  {
    op: 'setImpactedTargets',
    valid: () => ({ ...queueRef(), pr: { number: 1, sha: 'sha-1' }, impactedTargets: ['//new:target'] }),
    required: [...repoFields, 'pr', 'pr.number', 'pr.sha', 'impactedTargets'],
    wrongTypes: [...repoWrongTypes, ['pr.sha', 12], ['impactedTargets', 'SOME'], ['impactedTargets', 5], ['impactedTargets.0', 7]],
    validStatus: 200,
  },
  {
    op: 'getMergeQueueTestingDetails',
    valid: () => queueRef(),
    required: repoFields,
    wrongTypes: [...repoWrongTypes, ['testRunId', 5], ['pr', 'x']],
    validStatus: 200,
  },
  {
    op: 'createQueue',
    valid: () => ({ ...queueRef('release'), concurrency: 3 }),
    required: repoFields,
    wrongTypes: [...repoWrongTypes, ['concurrency', 0], ['concurrency', 'many'], ['mode', 'serial'], ['batch', 'true'], ['requiredStatuses', 'ci']],
    validStatus: 200,
  },
  {
    op: 'getQueue',
    valid: () => queueRef(),
    required: repoFields,
    wrongTypes: repoWrongTypes,
    validStatus: 200,
  },
  {
    op: 'updateQueue',
    valid: () => ({ ...queueRef(), concurrency: 7 }),
    required: repoFields,
    wrongTypes: [...repoWrongTypes, ['concurrency', 1001], ['state', 'switching_modes'], ['state', 'stopped'], ['mergeMethod', 3]],
    validStatus: 200,
  },
  {
    op: 'deleteQueue',
    valid: () => queueRef('empty'),
    required: repoFields,
    wrongTypes: repoWrongTypes,
    validStatus: 200,
  },
  {
    op: 'flaky-tests/list-quarantined-tests',
    valid: () => ({ repo: ACME_REPO, org_url_slug: 'acme', page_query: { page_size: 10 } }),
    required: ['repo', 'repo.host', 'repo.owner', 'repo.name', 'org_url_slug', 'page_query'],
    wrongTypes: [['repo.name', []], ['org_url_slug', 1], ['page_query', 'all'], ['page_query.page_size', 0], ['page_query.page_size', 101], ['page_query.page_token', 9]],
    validStatus: 200,
  },
];

/** A deep copy of `body` with the value at `path` replaced, or removed when `value` is REMOVE. */
const REMOVE = Symbol('remove');
function edit(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split('.');
  let node = copy as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) node = node[k] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

function withRepo(body: Record<string, unknown>, repo: object): Record<string, unknown> {
  return { ...body, repo };
}

let t: TestApp;
let port: number;
let closeServer: () => Promise<void>;

beforeAll(async () => {
  t = await createTestApp();
  const ok = async (res: request.Response) => expect((await res).status).toBe(200);
  await ok(await post(t, 'createQueue', queueRef()));
  await ok(await post(t, 'createQueue', queueRef('empty')));
  await ok(await post(t, 'submitPullRequest', prRef(1)));
  await ok(await post(t, 'setImpactedTargets', { ...queueRef(), pr: { number: 1, sha: 'sha-1' }, impactedTargets: ['//a:b'] }));
  await ok(await post(t, 'createQueue', queueRef('main', GLOBEX_REPO), t.globex.token));
  await ok(await post(t, 'submitPullRequest', prRef(1, 'main', GLOBEX_REPO), t.globex.token));
  ({ port, close: closeServer } = await listen(t.app));
});

afterAll(async () => {
  await closeServer();
  await t.close();
});

describe.each(ROUTES)('POST /v1/$op', (route) => {
  async function unchanged(send: () => Promise<request.Response> | request.Test, status: number, code: string) {
    const before = await storeSnapshot(t);
    const res = await send();
    expectProblem(res, status, code);
    expect(await storeSnapshot(t)).toBe(before);
    return res;
  }

  test('401 without a token, with an unknown token and with a revoked one', async () => {
    for (const token of [null, generateToken(), t.revokedToken, '']) {
      await unchanged(() => post(t, route.op, route.valid(), token), 401, 'unauthorized');
    }
  });

  test('401 before the body is read: a request with no token is refused while its body is still coming', async () => {
    const res = await postDeclaredLength(port, `/v1/${route.op}`, { 'content-type': 'application/json' }, 5 * MiB, '{"repo": ');
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'unauthorized' });
  });

  test("403 for another organization's repository, whether or not it has a queue", async () => {
    const existing = await unchanged(() => post(t, route.op, withRepo(route.valid(), GLOBEX_REPO)), 403, 'forbidden');
    const missing = await unchanged(
      () => post(t, route.op, { ...withRepo(route.valid(), GLOBEX_REPO), targetBranch: 'no-such-branch' }),
      403,
      'forbidden',
    );
    // The answer does not tell whether globex has a queue for the branch.
    expect(missing.body).toEqual(existing.body);
  });

  test.each(route.required)('400 naming %s when it is missing', async (path) => {
    const res = await unchanged(() => post(t, route.op, edit(route.valid(), path, REMOVE)), 400, 'invalid_request');
    expect(res.body.errors).toContainEqual({ path, message: expect.any(String) });
  });

  test.each(route.wrongTypes)('400 naming %s when it is %j', async (path, value) => {
    const res = await unchanged(() => post(t, route.op, edit(route.valid(), path, value)), 400, 'invalid_request');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  test('400 lists every problem at once', async () => {
    const body = edit(edit(route.valid(), 'repo.owner', REMOVE), 'repo.name', 12);
    const res = await unchanged(() => post(t, route.op, body), 400, 'invalid_request');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'repo.owner', message: 'Required' },
        { path: 'repo.name', message: expect.any(String) },
      ]),
    );
  });

  test('400 invalid_json for a body that is not JSON', async () => {
    await unchanged(
      () =>
        request(t.app)
          .post(`/v1/${route.op}`)
          .set('x-api-token', t.acme.token)
          .set('Content-Type', 'application/json')
          .send('{"repo": {"host": "github.com", '),
      400,
      'invalid_json',
    );
  });

  test('415 for a body that is not sent as JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      await unchanged(
        () =>
          request(t.app)
            .post(`/v1/${route.op}`)
            .set('x-api-token', t.acme.token)
            .set('Content-Type', type)
            .send(JSON.stringify(route.valid())),
        415,
        'unsupported_media_type',
      );
    }
  });

  test('413 at once for a declared 25 MiB body, before the body is sent', async () => {
    const before = await storeSnapshot(t);
    const res = await postDeclaredLength(
      port,
      `/v1/${route.op}`,
      { 'x-api-token': t.acme.token, 'content-type': 'application/json' },
      25 * MiB,
      '{"repo": {"host": "github.com", "owner": "acme", "name": "widgets"}, "junk": "',
    );
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
    expect(await storeSnapshot(t)).toBe(before);
  });
});

describe('GET /v1/getMergeQueueMetrics', () => {
  const metrics = (token: string | null, query = '') => {
    const req = request(t.app).get(`/v1/getMergeQueueMetrics${query}`);
    return token === null ? req : req.set('x-api-token', token);
  };

  test('401 without a token, with an unknown token and with a revoked one', async () => {
    for (const token of [null, generateToken(), t.revokedToken]) expectProblem(await metrics(token), 401, 'unauthorized');
  });

  test("403 for another organization's repository", async () => {
    expectProblem(await metrics(t.acme.token, '?repo=globex/gadgets&repoHost=github.com'), 403, 'forbidden');
  });

  test('400 for repo without repoHost, or a repo that is not owner/name', async () => {
    const noHost = await metrics(t.acme.token, '?repo=acme/widgets');
    expectProblem(noHost, 400, 'invalid_request');
    expect(noHost.body.errors).toContainEqual({ path: 'repoHost', message: expect.any(String) });
    for (const repo of ['widgets', 'acme/widgets/extra', '/widgets']) {
      const res = await metrics(t.acme.token, `?repo=${encodeURIComponent(repo)}&repoHost=github.com`);
      expectProblem(res, 400, 'invalid_request');
      expect(res.body.errors).toContainEqual({ path: 'repo', message: expect.any(String) });
    }
    expectProblem(await metrics(t.acme.token, '?repo=acme/a&repo=acme/b&repoHost=github.com'), 400, 'invalid_request');
  });
});

describe('the untouched bodies used above are valid', () => {
  // Run last: the writing routes change the store here. Shows the refusals above were caused by
  // the one thing each test changed.
  test.each(ROUTES)('POST /v1/$op answers $validStatus', async (route) => {
    const res = await post(t, route.op, route.valid());
    expect(res.status).toBe(route.validStatus);
  });
});

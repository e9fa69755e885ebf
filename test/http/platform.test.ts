import express from 'express';
import request from 'supertest';
import { expectProblem, post, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** Health, unknown paths and methods, unexpected errors, request logs, token last use, rate limits. */

let t: TestApp;
afterEach(async () => {
  await t.close();
});

describe('with the default test app', () => {
  beforeEach(async () => {
    t = await createTestApp();
  });

  test('/healthz and /readyz answer without a token', async () => {
    expect((await request(t.app).get('/healthz')).status).toBe(200);
    const ready = await request(t.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  test('/readyz is 503 when the store does not answer; /healthz still 200', async () => {
    await t.store.close();
    expectProblem(await request(t.app).get('/readyz'), 503, 'not_ready');
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });

  test('an unexpected failure is 500 internal, without details, and logged', async () => {
    await t.store.close();
    const res = await post(t, 'getQueue', queueRef());
    expectProblem(res, 500, 'internal');
    expect(JSON.stringify(res.body)).not.toMatch(/sqlite|database|\.ts:|\.js:/i);
    expect(t.logLines().some((l) => l.msg === 'unhandled error' && l.level === 50)).toBe(true);
  });

  test('404 not_found for unknown paths, in and out of /v1', async () => {
    for (const path of ['/v1/nope', '/v2/getQueue', '/', '/v1', '/v1/flaky-tests/other']) {
      expectProblem(await request(t.app).post(path).set('x-api-token', t.acme.token), 404, 'not_found');
      if (path !== '/') expectProblem(await request(t.app).get(path), 404, 'not_found');
    }
  });

  test('GET / sends a browser to the web page', async () => {
    const res = await request(t.app).get('/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('ui/');
    expect((await request(t.app).get('/ui/')).status).toBe(200);
  });

  test('405 method_not_allowed with Allow for a known path and another method', async () => {
    const cases: [string, 'get' | 'put' | 'delete' | 'post' | 'patch', string][] = [
      ['/v1/getQueue', 'get', 'POST'],
      ['/v1/submitPullRequest', 'put', 'POST'],
      ['/v1/flaky-tests/list-quarantined-tests', 'delete', 'POST'],
      ['/v1/getMergeQueueMetrics', 'post', 'GET, HEAD'],
      ['/v1/openapi.json', 'post', 'GET, HEAD'],
      ['/healthz', 'patch', 'GET, HEAD'],
    ];
    for (const [path, method, allow] of cases) {
      const res = await request(t.app)[method](path).set('x-api-token', t.acme.token);
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe(allow);
    }
  });

  test('one log line per request with method, path, status and duration; never the token', async () => {
    await post(t, 'createQueue', queueRef());
    await post(t, 'getQueue', queueRef(), 'mq_not-a-real-token');
    await request(t.app).get('/v1/getMergeQueueMetrics?repo=acme/widgets&repoHost=github.com').set('x-api-token', t.acme.token);
    const requests = t.logLines().filter((l) => l.msg === 'request');
    expect(requests.map((l) => [l.method, l.path, l.status])).toEqual([
      ['POST', '/v1/createQueue', 200],
      ['POST', '/v1/getQueue', 401],
      ['GET', '/v1/getMergeQueueMetrics', 200],
    ]);
    for (const l of requests) expect(typeof l.ms).toBe('number');
    expect(requests[0]).toMatchObject({ org: 'acme' });
    const raw = t.rawLog();
    expect(raw).not.toContain(t.acme.token);
    expect(raw).not.toContain('mq_not-a-real-token');
  });

  test("a token's last use is recorded, at most once a minute", async () => {
    const lastUsed = async () => (await t.store.orgs.getToken(t.acme.tokenId))?.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await post(t, 'getQueue', queueRef());
    expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
    t.clock.advance(30_000);
    await post(t, 'getQueue', queueRef());
    expect(await lastUsed()).toBe('2026-11-22T10:00:00.000Z');
    t.clock.advance(31_000);
    await post(t, 'getQueue', queueRef());
    expect(await lastUsed()).toBe('2026-11-22T10:01:01.000Z');
  });
});

describe('rate limit', () => {
  beforeEach(async () => {
    t = await createTestApp({ rateLimit: { ratePerSecond: 2, burst: 3 } });
  });

  test('429 rate_limited with Retry-After past the burst; per token; refills with time', async () => {
    for (let i = 0; i < 3; i++) expect((await post(t, 'getQueue', queueRef())).status).toBe(404);
    const limited = await post(t, 'createQueue', queueRef());
    expectProblem(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBe('1');
    // The refused request did nothing.
    expect(await t.store.queues.listQueues({})).toEqual([]);
    // Another organization's token has its own bucket.
    expect((await post(t, 'getQueue', queueRef('main', { host: 'github.com', owner: 'globex', name: 'g' }), t.globex.token)).status).toBe(404);

    t.clock.advance(500);
    expect((await post(t, 'getQueue', queueRef())).status).toBe(404);
    expectProblem(await post(t, 'getQueue', queueRef()), 429, 'rate_limited');
    t.clock.advance(10_000);
    for (let i = 0; i < 3; i++) expect((await post(t, 'getQueue', queueRef())).status).toBe(404);
    expectProblem(await post(t, 'getQueue', queueRef()), 429, 'rate_limited');
  });

  test('unauthenticated requests never count against a token, but a flood of them is limited per client address', async () => {
    for (let i = 0; i < 3; i++) expectProblem(await post(t, 'getQueue', queueRef(), null), 401, 'unauthorized');
    const flooded = await post(t, 'getQueue', queueRef(), 'mq_unknown');
    expectProblem(flooded, 429, 'rate_limited');
    expect(flooded.headers['retry-after']).toBe('1');
    // The token's own bucket is untouched.
    for (let i = 0; i < 3; i++) expect((await post(t, 'getQueue', queueRef())).status).toBe(404);
  });
});

describe('mounted routers', () => {
  test('the sandbox router answers under /sandbox; the webhook handler sees the raw body of its path', async () => {
    const sandboxRouter = express.Router();
    sandboxRouter.get('/state', (_req, res) => {
      res.json({ sandbox: true });
    });
    const received: string[] = [];
    const webhooks: express.RequestHandler = (req, res, next) => {
      if (req.path !== '/api/github/webhooks') return next();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.status(202).end();
      });
    };
    t = await createTestApp({ http: { sandboxRouter, webhooks } });

    expectProblem(await request(t.app).get('/sandbox/state'), 401, 'unauthorized');
    expect((await request(t.app).get('/sandbox/state').set('x-api-token', t.acme.token)).body).toEqual({ sandbox: true });
    const payload = '{"action":"opened",  "number": 1}';
    const hook = await request(t.app).post('/api/github/webhooks').set('Content-Type', 'application/json').send(payload);
    expect(hook.status).toBe(202);
    // Byte for byte: signatures are computed over the raw body.
    expect(received).toEqual([payload]);
    // Everything else still reaches the API.
    expect((await post(t, 'getQueue', queueRef())).status).toBe(404);
    expectProblem(await request(t.app).get('/sandbox/nope').set('x-api-token', t.acme.token), 404, 'not_found');
  });
});

describe('every 4xx names what was wrong', () => {
  beforeEach(async () => {
    t = await createTestApp();
  });

  test('403 names repo (or org_url_slug), 404 the URL, 405 the method, 401 the token header', async () => {
    const foreign = await post(t, 'getQueue', queueRef('main', { host: 'github.com', owner: 'globex', name: 'g' }));
    expectProblem(foreign, 403, 'forbidden');
    expect(foreign.body.errors).toEqual([{ path: 'repo', message: expect.any(String) }]);
    const slug = await post(t, 'flaky-tests/list-quarantined-tests', { repo: { host: 'github.com', owner: 'acme', name: 'w' }, org_url_slug: 'globex', page_query: { page_size: 10, page_token: '' } });
    expectProblem(slug, 403, 'forbidden');
    expect(slug.body.errors).toEqual([{ path: 'org_url_slug', message: expect.any(String) }]);
    expect((await request(t.app).get('/v1/nope')).body.errors).toEqual([{ path: '(url)', message: 'no such operation' }]);
    expect((await request(t.app).get('/v1/getQueue')).body.errors).toEqual([{ path: '(method)', message: 'must be POST' }]);
    expect((await post(t, 'getQueue', queueRef(), null)).body.errors).toEqual([{ path: 'x-api-token', message: expect.any(String) }]);
  });
});

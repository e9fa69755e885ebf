import http from 'node:http';
import { once } from 'node:events';
import request from 'supertest';
import { listen as listenService } from '../../src/server/http-listener.js';
import { collect, listen, openPost, type RawResponse } from './helpers/raw-http.js';
import { expectProblem, post, queueRef, storeSnapshot } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** Bodies built to hurt: deep nesting, slow senders, many large bodies at once. */

const MiB = 1024 * 1024;

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp({ http: { bodyBounds: { timeoutMs: 400, largePerToken: 2 } } });
  await post(t, 'createQueue', queueRef());
});
afterEach(async () => {
  await t.close();
});

const nested = (depth: number) => `{"repo":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)},"targetBranch":"main"}`;

test('JSON nested 64 levels deep is parsed; 65 is 400 invalid_json naming the body, and nothing changes', async () => {
  const ok = await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', 'application/json').send(nested(64));
  expectProblem(ok, 400, 'invalid_request'); // parsed, then refused by the schema: repo is not an object
  const before = await storeSnapshot(t);
  const deep = await request(t.app).post('/v1/updateQueue').set('x-api-token', t.acme.token).set('Content-Type', 'application/json').send(nested(65));
  expectProblem(deep, 400, 'invalid_json');
  expect(deep.body.errors).toEqual([{ path: '(body)', message: 'the body nests deeper than 64 levels' }]);
  expect(await storeSnapshot(t)).toBe(before);
});

test('brackets inside strings do not count as nesting', async () => {
  const body = JSON.stringify({ ...queueRef(), note: `${'['.repeat(500)}\\"{{{` });
  const res = await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', 'application/json').send(body);
  expect(res.status).toBe(200);
});

test('a 20 MB body nested twenty million levels deep is 400 invalid_json, never parsed', async () => {
  // This file's 400 ms body deadline is for the stall tests; on a busy machine 20 MB may take longer.
  await t.close();
  t = await createTestApp({ http: { bodyBounds: { timeoutMs: 30_000, largePerToken: 2 } } });
  const server = await listen(t.app);
  try {
    const { req, response } = openPost(server.port, '/v1/setImpactedTargets', { 'x-api-token': t.acme.token, 'content-type': 'application/json', 'content-length': String(20_000_000) });
    const chunk = Buffer.alloc(1_000_000, '[');
    for (let i = 0; i < 20; i++) if (!req.write(chunk)) await once(req, 'drain');
    req.end();
    const res = await response;
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'invalid_json' });
    req.destroy();
  } finally {
    await server.close();
  }
});

test('a body that stalls is answered 408 problem+json when its time is up, and the connection is closed', async () => {
  const server = await listen(t.app);
  try {
    const { req, response } = openPost(server.port, '/v1/getQueue', { 'x-api-token': t.acme.token, 'content-type': 'application/json', 'content-length': '1000' });
    req.write('{"repo":');
    const started = Date.now();
    const res = await response;
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(res.status).toBe(408);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'request_timeout', errors: [{ path: '(body)' }] });
    req.destroy();
  } finally {
    await server.close();
  }
});

test('a token may send two bodies over 1 MiB at a time; the third is 429 until one has arrived', async () => {
  const server = await listen(t.app);
  const stalled: http.ClientRequest[] = [];
  try {
    const openLarge = (token: string) => {
      const { req } = openPost(server.port, '/v1/setImpactedTargets', { 'x-api-token': token, 'content-type': 'application/json', 'content-length': String(2 * MiB) });
      req.write('{"impactedTargets":["a"');
      stalled.push(req);
      return new Promise<RawResponse>((resolve) => req.on('response', (res) => void collect(res).then(resolve)));
    };
    const first = openLarge(t.acme.token);
    const second = openLarge(t.acme.token);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = await openLarge(t.acme.token);
    expect(third.status).toBe(429);
    expect(JSON.parse(third.body)).toMatchObject({ code: 'rate_limited', errors: [{ path: '(body)' }] });
    // Small bodies of that token, and large ones of another organization, still go through.
    expect((await post(t, 'getQueue', queueRef())).status).toBe(200);
    const other = openLarge(t.globex.token);
    // The stalled ones time out (408) and free their places.
    expect((await first).status).toBe(408);
    expect((await second).status).toBe(408);
    expect((await other).status).toBe(408);
    const again = openLarge(t.acme.token);
    expect((await again).status).toBe(408);
  } finally {
    for (const req of stalled) req.destroy();
    await server.close();
  }
});

test('a client that does not finish its request headers in time is disconnected', async () => {
  const service = await listenService(t.app, { port: 0, host: '127.0.0.1', graceMs: 100, headersTimeoutMs: 500, bodyTimeoutMs: 400 });
  try {
    const net = await import('node:net');
    const socket = net.connect(service.port, '127.0.0.1');
    await once(socket, 'connect');
    socket.write('POST /v1/getQueue HTTP/1.1\r\nHost: x\r\n');
    const started = Date.now();
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await once(socket, 'close');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1.1 408/);
  } finally {
    await service.close();
  }
});


import { once } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { collect, listen, openPost, postBytes, type RawResponse } from './helpers/raw-http.js';
import { expectProblem, post, queueRef, storeSnapshot } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** The 20 MiB body limit, enforced while streaming, and what counts as a JSON body. */

const MiB = 1024 * 1024;
const LIMIT = 20 * MiB;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/**
 * Memory a buffered body would occupy: JS heap plus Buffers (which live outside the heap). V8 frees
 * the memory of collected Buffers on a background thread, which lags on a busy machine, so garbage
 * is collected until two readings agree: a server that kept the body would keep it in every reading.
 */
async function memoryInUse(): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 40; attempt++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 25));
    collectGarbage();
    const m = process.memoryUsage();
    const now = m.heapUsed + m.arrayBuffers;
    if (Math.abs(now - last) < 256 * 1024) return Math.min(now, last);
    last = now;
  }
  return last;
}

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  await post(t, 'createQueue', queueRef());
});
afterEach(async () => {
  await t.close();
});

/** A getQueue body padded with an ignored field to exactly `bytes` bytes. */
function paddedBody(bytes: number): string {
  const head = JSON.stringify({ ...queueRef(), padding: '' }).slice(0, -2);
  return `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
}

const postRaw = (body: string | Buffer, headers: Record<string, string> = {}) => {
  const req = request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', 'application/json');
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  return req.send(body);
};

test('getQueue reads a body of exactly 1 MiB; one byte more is 413 (20 MiB is only for target lists)', async () => {
  const exact = paddedBody(MiB);
  expect(Buffer.byteLength(exact)).toBe(MiB);
  expect((await postRaw(exact)).status).toBe(200);
  const over = await postRaw(paddedBody(MiB + 1));
  expectProblem(over, 413, 'payload_too_large');
  expect(over.body.errors).toEqual([{ path: '(body)', message: `must be at most ${MiB} bytes` }]);
});

test('setImpactedTargets reads a body of exactly 20 MiB; one byte more is 413', async () => {
  const head = JSON.stringify({ ...queueRef(), pr: { number: 1, sha: 'sha-1' }, impactedTargets: ['t'], padding: '' }).slice(0, -2);
  const body = (bytes: number) => `${head}${'x'.repeat(bytes - head.length - 2)}"}`;
  const send = (text: string) =>
    request(t.app).post('/v1/setImpactedTargets').set('x-api-token', t.acme.token).set('Content-Type', 'application/json').send(text);
  expect((await send(body(LIMIT))).status).toBe(200);
  expectProblem(await send(body(LIMIT + 1)), 413, 'payload_too_large');
});

test('a 25 MiB chunked target list is refused with 413 without being buffered whole', async () => {
  const { port, server, close } = await listen(t.app);
  try {
    const before = await storeSnapshot(t);
    let serverSocket: Socket | null = null;
    server.on('connection', (socket: Socket) => (serverSocket = socket));

    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/v1/setImpactedTargets',
      method: 'POST',
      headers: { 'x-api-token': t.acme.token, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    const response = new Promise<RawResponse>((resolve, reject) => {
      req.on('response', (res) => collect(res).then(resolve, reject));
      req.on('error', reject);
    });

    const total = 25 * MiB;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    // Warm up first: modules the request path loads lazily would otherwise count as growth.
    expect((await postRaw(paddedBody(MiB))).status).toBe(200);
    const baseline = await memoryInUse();
    let sent = 0;
    req.write('{"repo":{"host":"github.com","owner":"acme","name":"widgets"},"targetBranch":"main","padding":"');
    while (sent < total) {
      sent += chunk.length;
      if (!req.write(chunk)) await once(req, 'drain');
    }
    // Before ending the body, let the server read all 25 MiB of it.
    while (((serverSocket as Socket | null)?.bytesRead ?? 0) < total) await new Promise((resolve) => setImmediate(resolve));
    const growth = (await memoryInUse()) - baseline;
    req.end('"}');

    const res = await response;
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'payload_too_large', status: 413 });
    // Reading stopped keeping the body once it passed the limit; a server still collecting it
    // would hold the 25 MiB here.
    expect(growth).toBeLessThan(8 * MiB);
    expect(await storeSnapshot(t)).toBe(before);
  } finally {
    await close();
  }
});

test('the limit applies to the decompressed body: a gzip bomb is 413', async () => {
  const server = await listen(t.app);
  const headers = { 'x-api-token': t.acme.token, 'content-type': 'application/json', 'content-encoding': 'gzip' };
  try {
    const bomb = gzipSync(paddedBody(25 * MiB));
    expect(bomb.length).toBeLessThan(MiB);
    const refused = await postBytes(server.port, '/v1/getQueue', headers, bomb);
    expect(refused.status).toBe(413);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'payload_too_large' });
    // A small compressed body is fine.
    const small = await postBytes(server.port, '/v1/getQueue', headers, gzipSync(JSON.stringify(queueRef())));
    expect(small.status).toBe(200);
  } finally {
    await server.close();
  }
});

test.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8', 'application/vnd.mergeq+json', 'application/merge-patch+json'])(
  'Content-Type %s is JSON',
  async (type) => {
    const res = await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', type).send(JSON.stringify(queueRef()));
    expect(res.status).toBe(200);
  },
);

test.each(['text/json', 'application/jsonx', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset="UTF-16LE"', 'application/json; charset=us-ascii'])('Content-Type %s is 415', async (type) => {
  const res = await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', type).send(JSON.stringify(queueRef()));
  expectProblem(res, 415, 'unsupported_media_type');
});

test('no Content-Type at all is 415; an empty JSON body is 400 naming the missing fields', async () => {
  expectProblem(await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token), 415, 'unsupported_media_type');
  const empty = await request(t.app).post('/v1/getQueue').set('x-api-token', t.acme.token).set('Content-Type', 'application/json');
  expectProblem(empty, 400, 'invalid_request');
  expect(empty.body.errors).toEqual([
    { path: 'repo', message: 'Required' },
    { path: 'targetBranch', message: 'Required' },
  ]);
});

test.each(['null', '[]', '"getQueue"', '42'])('a JSON body that is not an object (%s) is 400 invalid_request', async (text) => {
  const res = await postRaw(text);
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: '(body)', message: 'expected a JSON object' }]);
});

test('a client streaming far past the limit gets its 413 while it sends, and is then disconnected', async () => {
  const server = await listen(t.app);
  try {
    const { req, response } = openPost(server.port, '/v1/getQueue', { 'x-api-token': t.acme.token, 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const disconnected = new Promise<void>((resolve) => req.on('socket', (socket) => socket.once('close', () => resolve())));
    const cut = new Promise<void>((resolve) => req.on('error', () => resolve()));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    void (async () => {
      for (let sent = 0; sent < 25 * MiB && !req.destroyed; sent += chunk.length) if (!req.write(chunk)) await Promise.race([once(req, 'drain'), cut, disconnected]);
    })();
    const res = await response;
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    // The server stops reading after its answer and closes the connection a moment later, while
    // this client is still trying to send.
    await disconnected;
    expect(req.writableFinished).toBe(false);
  } finally {
    await server.close();
  }
});

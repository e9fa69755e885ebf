import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createLogger } from '../../src/server/logger.js';
import { webhookEndpoint, type WebhookDelivery } from '../../src/github-app/webhook-endpoint.js';
import { listen, openPost } from '../http/helpers/raw-http.js';
import { expectProblem } from '../http/helpers/requests.js';
import { createTestApp, memoryLogger, type TestApp } from '../http/helpers/test-app.js';

/** /api/github/webhooks: bounded, verified before it is parsed, and quiet about what it refuses. */

const SECRET = 'webhook-secret';
const MiB = 1024 * 1024;
const sign = (body: string | Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

let t: TestApp;
let received: WebhookDelivery[];
let log: ReturnType<typeof memoryLogger>;
beforeEach(async () => {
  received = [];
  log = memoryLogger();
  const webhooks = webhookEndpoint({ secret: SECRET, receive: async (d) => (received.push(d), true), logger: log.logger, bodyTimeoutMs: 2000 });
  t = await createTestApp({ http: { webhooks } });
});
afterEach(async () => {
  await t.close();
});

const deliver = (body: string, headers: Record<string, string>) => {
  const req = request(t.app).post('/api/github/webhooks').set('content-type', 'application/json').set('x-github-event', 'ping').set('x-github-delivery', 'd-1');
  for (const [k, v] of Object.entries(headers)) req.set(k, v);
  return req.send(body);
};

test('a signed delivery reaches the handlers, parsed', async () => {
  const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
  const res = await deliver(body, { 'x-hub-signature-256': sign(body) });
  expect(res.status).toBe(200);
  expect(received).toEqual([{ id: 'd-1', name: 'ping', payload: { zen: 'Keep it logically awesome.', hook_id: 1 } }]);
});

test('a forged delivery is 400 naming the signature header, is never parsed, and its payload, signature and headers stay out of the log', async () => {
  const payload = '{"secret_looking_payload": "p4yl0ad-marker", broken json';
  const forged = sign(payload, 'not-the-secret');
  const res = await deliver(payload, { 'x-hub-signature-256': forged, 'x-github-event': 'evt-marker-123', 'x-github-delivery': 'delivery-marker-456' });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: 'x-hub-signature-256', message: expect.any(String) }]);
  expect(received).toEqual([]);
  const text = log.text();
  expect(text).toContain('webhook delivery refused');
  for (const secretish of ['p4yl0ad-marker', forged, forged.slice(7, 30), 'evt-marker-123', 'delivery-marker-456']) expect(text).not.toContain(secretish);
});

test('a signed payload that is not a JSON object (null, a number, an array) is a 400 naming the body, and reaches no handler', async () => {
  for (const body of ['null', '42', '[]']) {
    const res = await deliver(body, { 'x-hub-signature-256': sign(body) });
    expectProblem(res, 400, 'invalid_request');
    expect(res.body.errors).toEqual([{ path: '(body)', message: 'must be a JSON object' }]);
  }
  expect(received).toEqual([]);
});

test('a delivery without a signature is 400 naming the header', async () => {
  const res = await deliver('{}', {});
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: 'x-hub-signature-256', message: 'Required' }]);
});

test('an unsigned 30 MiB delivery is 413 after 25 MiB, without being kept', async () => {
  const server = await listen(t.app);
  try {
    const { req, response } = openPost(server.port, '/api/github/webhooks', { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': 'd-2', 'x-hub-signature-256': 'sha256=00', 'transfer-encoding': 'chunked' });
    const chunk = Buffer.alloc(MiB, 'x');
    for (let i = 0; i < 30; i++) if (!req.write(chunk)) await once(req, 'drain');
    req.end();
    const res = await response;
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: 'payload_too_large', detail: `the request body exceeds the limit of ${25 * MiB} bytes` });
    expect(received).toEqual([]);
  } finally {
    await server.close();
  }
});

test('the service logger blanks out a delivery attached to an error (probot attaches err.event)', () => {
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (c, _e, done) => (lines.push(String(c)), done()) }) as never);
  const err = Object.assign(new Error('handler failed'), { event: { id: 'd-3', name: 'push', payload: { marker: 'p4yl0ad-marker' } } });
  logger.error({ err }, 'webhook handler failed');
  logger.debug({ event: { payload: { marker: 'p4yl0ad-marker' } } }, 'Webhook received');
  expect(lines.join('')).not.toContain('p4yl0ad-marker');
});

test('a flood of webhooks is limited per client address (429 problem+json), signed or not', async () => {
  const webhooks = webhookEndpoint({ secret: SECRET, receive: async (d) => (received.push(d), true), logger: log.logger, bodyTimeoutMs: 2000 });
  const limited = await createTestApp({ rateLimit: { ratePerSecond: 1, burst: 3 }, http: { webhooks } });
  try {
    const body = '{"zen":"x"}';
    const send = () =>
      request(limited.app).post('/api/github/webhooks').set('content-type', 'application/json').set('x-github-event', 'ping')
        .set('x-github-delivery', 'd-9').set('x-hub-signature-256', sign(body)).send(body);
    for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200);
    const flooded = await send();
    expectProblem(flooded, 429, 'rate_limited');
    expect(flooded.headers['retry-after']).toBe('1');
    expect(received).toHaveLength(3);
  } finally {
    await limited.close();
  }
});

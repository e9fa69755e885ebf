import express from 'express';
import net from 'node:net';
import { webhookEndpoint } from '../../src/github-app/webhook-endpoint.js';
import { listen } from './helpers/raw-http.js';
import { createTestApp, memoryLogger, type TestApp } from './helpers/test-app.js';

/**
 * A request refused on its headers (401, 404, 405, 415, the page's and the sandbox's 401, the GitHub
 * webhook endpoint's 400 and 415) is answered with `Connection: close`, and the connection is closed:
 * the server does not read the rest of a body declared at 50 MiB.
 */

const MiB = 1024 * 1024;
const DECLARED = 50 * MiB;

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
/** Bytes the server read from each connection, once it closed. */
let bytesRead: number[];
beforeAll(async () => {
  const sandboxRouter = express.Router();
  sandboxRouter.post('/repos', (_req, res) => void res.json({}));
  const webhooks = webhookEndpoint({ secret: 's', receive: async () => true, logger: memoryLogger().logger, bodyTimeoutMs: 60_000 });
  t = await createTestApp({ http: { sandboxRouter, webhooks } });
  server = await listen(t.app);
  server.server.on('connection', (socket: net.Socket) => socket.once('close', () => bytesRead.push(socket.bytesRead)));
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/**
 * Sends the request line and headers declaring a 50 MiB body, then writes the body as fast as the
 * connection takes it until the server answers and the connection closes (or all 50 MiB went).
 */
async function refusedUpload(head: string): Promise<{ answer: string; written: number }> {
  const socket = net.connect(server.port, '127.0.0.1');
  let answer = '';
  let closed = false;
  socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
  socket.on('error', () => undefined);
  const done = new Promise<void>((resolve) => socket.once('close', () => ((closed = true), resolve())));
  socket.write(`${head}\r\nHost: localhost\r\nContent-Length: ${DECLARED}\r\nConnection: keep-alive\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  while (!closed && written < DECLARED) {
    if (!socket.write(chunk)) await Promise.race([new Promise((r) => socket.once('drain', r)), done]);
    written += chunk.length;
  }
  await Promise.race([done, new Promise((r) => setTimeout(r, 5000))]);
  socket.destroy();
  return { answer, written };
}

test.each([
  ['401 without a token', 'POST /v1/createQueue HTTP/1.1\r\nContent-Type: application/json', 401],
  ['404 for no operation', 'POST /v1/noSuchOperation HTTP/1.1\r\nContent-Type: application/json', 404],
  ['405 for another method', 'PUT /v1/openapi.json HTTP/1.1\r\nContent-Type: application/json', 405],
  ['415 for another content type', 'POST /v1/createQueue HTTP/1.1\r\nContent-Type: text/plain\r\nx-api-token: TOKEN', 415],
  ['the sandbox’s 401', 'POST /sandbox/repos HTTP/1.1\r\nContent-Type: application/json', 401],
  ['the page’s 401', 'POST /ui/api/queue/state HTTP/1.1\r\nContent-Type: application/json', 401],
  ['the webhook endpoint’s 400', 'POST /api/github/webhooks HTTP/1.1\r\nContent-Type: application/json\r\nx-github-event: push\r\nx-github-delivery: d-1', 400],
  ['the webhook endpoint’s 415', 'POST /api/github/webhooks HTTP/1.1\r\nContent-Type: text/plain\r\nx-github-event: push\r\nx-github-delivery: d-1\r\nx-hub-signature-256: sha256=00', 415],
])('%s: answered with Connection: close, and at most 1 MiB of the 50 MiB body is read', async (_name, head, status) => {
  bytesRead = [];
  const { answer } = await refusedUpload(head.replace('TOKEN', t.acme.token));
  expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
  expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  expect(answer).toContain('application/problem+json');
  await new Promise((r) => setTimeout(r, 50));
  expect(bytesRead).toHaveLength(1);
  expect(bytesRead[0]).toBeLessThanOrEqual(MiB);
});

test('fifty refused uploads at once each get their answer before the connection goes, not a reset', async () => {
  bytesRead = [];
  const heads = ['POST /v1/createQueue HTTP/1.1\r\nContent-Type: application/json', 'POST /v1/noSuchOperation HTTP/1.1\r\nContent-Type: application/json'];
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => refusedUpload(heads[i % 2]!)));
  const unanswered = results.filter((r) => !/^HTTP\/1.1 (401|404|429) /.test(r.answer));
  expect(unanswered).toHaveLength(0);
  await new Promise((r) => setTimeout(r, 50));
  expect(Math.max(...bytesRead)).toBeLessThanOrEqual(MiB);
});

import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { pino } from 'pino';
import { Probot } from 'probot';
import request from 'supertest';
import { webhookEndpoint } from '../../src/github-app/webhook-endpoint.js';
import { unknownInstallation } from '../../src/server/unknown-installation.js';
import { WebhookInbox, type InboundDelivery } from '../../src/service/github/webhook-inbox.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { TEST_PRIVATE_KEY, TestOctokit } from '../githost/github-test-client.js';
import { createTestApp, memoryLogger, TestClock, type TestApp } from '../http/helpers/test-app.js';

/**
 * GitHub's webhooks go through an inbox: verified, stored, answered at once, then handled from the
 * store with retries. A redelivery during a failing attempt is not lost; a crash after the answer
 * loses nothing; a stored delivery's redelivery is a no-op.
 */

const SECRET = 'webhook-secret';
const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
const COMMENT = JSON.stringify({ action: 'created', installation: { id: 7 }, comment: { body: '/merge' } });

/** A handler whose attempts the test settles one by one. */
class ControlledHandler {
  readonly attempts: { delivery: InboundDelivery; settle: (error?: Error) => void }[] = [];
  readonly handle = (delivery: InboundDelivery) =>
    new Promise<void>((resolve, reject) => this.attempts.push({ delivery, settle: (error) => (error ? reject(error) : resolve()) }));

  async nth(n: number): Promise<{ delivery: InboundDelivery; settle: (error?: Error) => void }> {
    for (let waited = 0; this.attempts.length < n; waited += 10) {
      if (waited > 5000) throw new Error(`attempt ${n} never started (${this.attempts.length} did)`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.attempts[n - 1]!;
  }
}

let t: TestApp;
let handler: ControlledHandler;
let inbox: WebhookInbox;
let log: ReturnType<typeof memoryLogger>;
beforeEach(async () => {
  handler = new ControlledHandler();
  log = memoryLogger();
  t = await createTestApp({ http: { webhooks: webhookEndpoint({ secret: SECRET, receive: (d) => inbox.accept(d), logger: log.logger, bodyTimeoutMs: 2000 }) } });
  inbox = new WebhookInbox({ store: t.store, clock: t.clock, logger: log.logger, handle: handler.handle, retryScheduleMs: [0, 0], pollMs: 10 });
  inbox.start();
});
afterEach(async () => {
  for (const a of handler.attempts) a.settle();
  await inbox.stop();
  await t.close();
});

const deliver = (body: string, id = 'd-1', name = 'issue_comment') =>
  request(t.app).post('/api/github/webhooks').set('content-type', 'application/json').set('x-github-event', name).set('x-github-delivery', id).set('x-hub-signature-256', sign(body)).send(body);

test('GitHub is answered before the handler finishes; a redelivery during a failing attempt is a no-op and the inbox retries until it is handled', async () => {
  const first = await deliver(COMMENT);
  expect(first.status).toBe(200);
  const attempt1 = await handler.nth(1);
  expect(attempt1.delivery).toEqual({ id: 'd-1', name: 'issue_comment', payload: JSON.parse(COMMENT) });

  // GitHub gave up waiting elsewhere and redelivers while the first attempt still runs (and then fails).
  const redelivery = await deliver(COMMENT);
  expect(redelivery.status).toBe(200);
  expect(redelivery.text).toBe('already received\n');
  attempt1.settle(new Error('GitHub answered 502'));

  const attempt2 = await handler.nth(2);
  attempt2.settle();
  await new Promise((r) => setTimeout(r, 50));
  expect(handler.attempts).toHaveLength(2);
  expect(log.text()).toContain('webhook delivery failed; retrying');

  // Handled: a later redelivery changes nothing.
  expect((await deliver(COMMENT)).text).toBe('already received\n');
  await new Promise((r) => setTimeout(r, 50));
  expect(handler.attempts).toHaveLength(2);
});

test('a delivery GitHub was answered for is handled after a crash, by the next process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mergeq-inbox-'));
  const path = join(dir, 'mergeq.sqlite');
  const clock = new TestClock();
  let store: Store = await openSqliteStore(path);
  try {
    // The first process stores the delivery and answers; it dies before handling it.
    const dying = new WebhookInbox({ store, clock, logger: pino({ level: 'silent' }), handle: async () => undefined });
    expect(await dying.accept({ id: 'd-crash', name: 'push', payload: { ref: 'refs/heads/main' } })).toBe(true);
    await store.close();

    store = await openSqliteStore(path);
    const handled: InboundDelivery[] = [];
    const next = new WebhookInbox({ store, clock, logger: pino({ level: 'silent' }), handle: async (d) => void handled.push(d) });
    expect(await next.runOnce()).toBe(1);
    expect(handled).toEqual([{ id: 'd-crash', name: 'push', payload: { ref: 'refs/heads/main' } }]);
    expect(await next.accept({ id: 'd-crash', name: 'push', payload: { ref: 'refs/heads/main' } })).toBe(false);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a delivery for an installation GitHub does not know is answered 200, then ignored with a log line that says so, not retried', async () => {
  if (!nock.isActive()) nock.activate();
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  const tokenRequests = nock('https://api.github.com').post('/app/installations/424242/access_tokens').times(5).reply(404, { message: 'Not Found' });
  const probot = new Probot({ appId: 1, privateKey: TEST_PRIVATE_KEY, secret: SECRET, Octokit: TestOctokit, log: pino({ level: 'silent' }) });
  await probot.load((app) => {
    app.on('issue_comment.created', async (context) => {
      await context.octokit.request('GET /repos/{owner}/{repo}', { owner: 'acme', repo: 'widgets' });
    });
  });
  await inbox.stop();
  inbox = new WebhookInbox({
    store: t.store,
    clock: t.clock,
    logger: log.logger,
    handle: (d) => probot.receive(d as Parameters<Probot['receive']>[0]),
    ignoredBecause: unknownInstallation,
    retryScheduleMs: [0, 0, 0],
    pollMs: 10,
  });
  try {
    inbox.start();
    const body = JSON.stringify({ action: 'created', installation: { id: 424242 }, comment: { body: '/merge' }, repository: { name: 'widgets', full_name: 'acme/widgets', owner: { login: 'acme' } } });
    const res = await deliver(body, 'd-unknown');
    expect(res.status).toBe(200);
    for (let waited = 0; !log.text().includes('webhook delivery ignored') && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    const line = log.text().split('\n').find((l) => l.includes('webhook delivery ignored'))!;
    expect(JSON.parse(line)).toMatchObject({ level: 30, delivery: 'd-unknown', event: 'issue_comment', msg: expect.stringContaining('installation 424242 is not known to this GitHub App') });
    expect(log.text()).not.toContain('[unprintable]');
    expect(tokenRequests.pendingMocks()).toHaveLength(1);
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  }
});

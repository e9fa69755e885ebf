import request from 'supertest';
import { createTestApp, type TestApp } from './helpers/test-app.js';
import { LOOPBACK_NETWORKS } from '../e2e/webhook-receiver.js';

/** POST /v1/webhooks/*: validation, tenancy, secrets shown once, the delivery log's paging. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const post = (path: string, body: unknown, token = t.acme.token) =>
  request(t.app).post(`/v1/webhooks/${path}`).set('x-api-token', token).set('Content-Type', 'application/json').send(JSON.stringify(body));

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };

test('create answers the secret once; list and update never show it', async () => {
  const created = await post('create', { url: 'https://hooks.example.com/mergeq', events: ['pull_request.*'], repo: REPO, targetBranch: 'main' });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ url: 'https://hooks.example.com/mergeq', events: ['pull_request.*'], repo: REPO, branch: 'main', enabled: true, format: 'standard' });
  expect(created.body.secret).toMatch(/^whsec_/);

  const listed = await post('list', {});
  expect(listed.status).toBe(200);
  expect(listed.body.webhooks).toHaveLength(1);
  expect(listed.body.webhooks[0]).not.toHaveProperty('secret');
  expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);

  const updated = await post('update', { id: created.body.id, enabled: false, repo: null });
  expect(updated.status).toBe(200);
  expect(updated.body).toMatchObject({ enabled: false, repo: null });
  expect(updated.body).not.toHaveProperty('secret');

  const rotated = await post('update', { id: created.body.id, rotateSecret: true });
  expect(rotated.body.secret).toMatch(/^whsec_/);
  expect(rotated.body.secret).not.toBe(created.body.secret);
});

test.each([
  ['http://hooks.example.com/x', 'url'],
  ['ftp://hooks.example.com/x', 'url'],
  ['https://user:pw@hooks.example.com/x', 'url'],
  ['not a url', 'url'],
])('a receiver URL %s is refused with a 400 naming url, storing nothing', async (url, field) => {
  const res = await post('create', { url, events: ['*'] });
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([field]);
  expect((await post('list', {})).body.webhooks).toEqual([]);
});

test('http to loopback is accepted where loopback is an allowed network (as these tests configure it)', async () => {
  for (const url of ['http://127.0.0.1:9000/h', 'http://localhost/h', 'http://[::1]:8080/h']) {
    expect((await post('create', { url, events: ['*'] })).status).toBe(200);
  }
});

test('by default a receiver inside the network is a 400 problem naming url', async () => {
  const strict = await createTestApp({ webhookAllowedNetworks: [] });
  try {
    for (const url of ['https://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:9000/h', 'https://[::ffff:7f00:1]/h']) {
      const res = await request(strict.app).post('/v1/webhooks/create').set('x-api-token', strict.acme.token).send({ url, events: ['*'] });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['url']);
    }
  } finally {
    await strict.close();
  }
});

test('an event name that names no event is a 400 naming events.N', async () => {
  const res = await post('create', { url: 'https://h.example.com', events: ['pull_request.merged', 'pull_request.merge'] });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].path).toBe('events.1');
  const empty = await post('create', { url: 'https://h.example.com', events: [] });
  expect(empty.status).toBe(400);
  expect(empty.body.errors[0].path).toBe('events');
});

test("a repository the organization does not own is a 403; another organization's webhook is a 404", async () => {
  const foreign = await post('create', { url: 'https://h.example.com', events: ['*'], repo: { host: 'github.com', owner: 'globex', name: 'x' } });
  expect(foreign.status).toBe(403);
  const mine = await post('create', { url: 'https://h.example.com', events: ['*'] });
  const theirs = await post('update', { id: mine.body.id, enabled: false }, t.globex.token);
  expect(theirs.status).toBe(404);
  expect((await post('delete', { id: mine.body.id }, t.globex.token)).body).toEqual({ deleted: false });
  expect((await post('list', {}, t.globex.token)).body.webhooks).toEqual([]);
  expect((await post('list', {})).body.webhooks[0].enabled).toBe(true);
  expect((await post('delete', { id: mine.body.id })).body).toEqual({ deleted: true });
});

test('the delivery log pages with tokens bound to the organization and filter', async () => {
  // Port 9 on loopback: nothing listens, so the attempts made here fail at once without leaving the machine.
  const hook = await post('create', { url: 'http://127.0.0.1:9/h', events: ['queue.*'] });
  for (const branch of ['main', 'b1', 'b2', 'b3', 'b4']) {
    const res = await request(t.app).post('/v1/createQueue').set('x-api-token', t.acme.token).send({ repo: REPO, targetBranch: branch });
    expect(res.status).toBe(200);
  }
  const { WebhookDispatcher } = await import('../../src/webhooks/dispatcher.js');
  const { pino } = await import('pino');
  const dispatcher = new WebhookDispatcher({ store: t.store, clock: { now: () => new Date(Date.UTC(2000, 0, 1)) }, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS });
  await dispatcher.runOnce();

  const first = await post('deliveries', { webhookId: hook.body.id, page_query: { page_size: 2 } });
  expect(first.status).toBe(200);
  expect(first.body.page).toMatchObject({ total_rows: 5, total_pages: 3, page_index: 0 });
  expect(first.body.deliveries.map((d: { eventType: string }) => d.eventType)).toEqual(['queue.created', 'queue.created']);
  const second = await post('deliveries', { webhookId: hook.body.id, page_query: { page_size: 2, page_token: first.body.page.next_page_token } });
  expect(second.body.page.page_index).toBe(1);
  // A token of one filter does not page another.
  const other = await post('deliveries', { status: 'failed', page_query: { page_size: 2, page_token: first.body.page.next_page_token } });
  expect(other.status).toBe(400);
  expect(other.body.code).toBe('invalid_page_token');
  expect((await post('deliveries', {}, t.globex.token)).body.page.total_rows).toBe(0);
  expect((await post('deliveries', { webhookId: hook.body.id }, t.globex.token)).status).toBe(404);
  expect((await post('redeliver', { deliveryId: 'dlv_missing' })).status).toBe(404);
});

test("a Slack channel's bot token: kept through updates, never answered, removed with null; refused on other formats and when malformed, without echoing it", async () => {
  const token = 'xoxb-1111-2222-n0tT0BeSh0wn';
  const slack = { url: 'https://hooks.slack.example.com/services/T1/B1/x', format: 'slack_blocks', events: ['pull_request.*'], mentions: { dev: 'U024BE7LH' } };
  const created = await post('create', { ...slack, slackBotToken: token });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ directMessages: true });
  const updated = await post('update', { id: created.body.id, verdicts: ['culprit', 'bystander'] });
  expect(updated.body).toMatchObject({ directMessages: true, verdicts: ['culprit', 'bystander'] });
  const listed = await post('list', {});
  expect(listed.body.webhooks[0]).toMatchObject({ directMessages: true });
  for (const body of [created.body, updated.body, listed.body]) expect(JSON.stringify(body)).not.toContain('n0tT0BeSh0wn');
  expect((await post('update', { id: created.body.id, slackBotToken: null })).body).toMatchObject({ directMessages: false });

  const teams = await post('create', { url: 'https://teams.example.com/workflows/x', format: 'teams', events: ['*'], slackBotToken: token });
  expect(teams.status).toBe(400);
  expect(teams.body.errors.map((e: { path: string }) => e.path)).toEqual(['slackBotToken']);
  const malformed = await post('create', { ...slack, slackBotToken: 'xoxp-user-token-n0tT0BeSh0wn' });
  expect(malformed.status).toBe(400);
  expect(malformed.body.errors.map((e: { path: string }) => e.path)).toEqual(['slackBotToken']);
  expect(JSON.stringify(malformed.body)).not.toContain('n0tT0BeSh0wn');
  expect((await post('list', {})).body.webhooks).toHaveLength(1);
});

test("a channel's name (what .github/mergeq.yml calls it by) is unique in the organization and checked; null removes it", async () => {
  const slack = { url: 'https://hooks.slack.example.com/services/T1/B1/x', format: 'slack_blocks', events: ['pull_request.*'] };
  const created = await post('create', { ...slack, name: 'culprits' });
  expect(created.body).toMatchObject({ name: 'culprits', fileRules: [] });
  const taken = await post('create', { ...slack, name: 'culprits' });
  expect(taken.status).toBe(409);
  expect(taken.body).toMatchObject({ code: 'webhook_name_taken', errors: [{ path: 'name' }] });
  const bad = await post('create', { ...slack, name: 'Culprits!' });
  expect(bad.status).toBe(400);
  expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['name']);
  expect((await post('update', { id: created.body.id, name: 'culprits' })).status).toBe(200);
  expect((await post('update', { id: created.body.id, name: null })).body).toMatchObject({ name: null });
  expect((await post('list', {})).body.webhooks).toHaveLength(1);
});

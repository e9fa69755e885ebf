import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { TestClock } from '../http/helpers/test-app.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { reason } from '../../src/domain/reasons.js';
import { transition } from '../../src/domain/transition.js';
import type { Org } from '../../src/domain/org.js';
import { aQueue, anEntry } from '../store/fixtures.js';
import { LOOPBACK_NETWORKS, WebhookReceiver } from '../e2e/webhook-receiver.js';

/** The dispatcher against a real SQLite store and a real receiver; the clock is a test clock. */

const HOUR = 3_600_000;
let store: Store;
let clock: TestClock;
let receiver: WebhookReceiver;
let acme: Org;
let globex: Org;
let service: WebhookService;

beforeEach(async () => {
  store = await openSqliteStore(':memory:');
  clock = new TestClock();
  receiver = await WebhookReceiver.start();
  acme = { id: randomUUID(), slug: 'acme', owners: ['github.com/acme'], createdAt: clock.now().toISOString() };
  globex = { id: randomUUID(), slug: 'globex', owners: ['github.com/globex'], createdAt: clock.now().toISOString() };
  await store.orgs.createOrg(acme);
  await store.orgs.createOrg(globex);
  service = new WebhookService({ store, clock, allowedNetworks: LOOPBACK_NETWORKS });
});
afterEach(async () => {
  await store.close();
  await receiver.close();
});

const dispatcher = (options: { schedule?: number[] } = {}) =>
  new WebhookDispatcher({ store, clock, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS, timeoutMs: 1000, ...(options.schedule ? { retryScheduleMs: options.schedule } : {}) });

test("test-case events go to the repository owner's organization only", async () => {
  await service.create(acme, { url: receiver.url, events: ['test_case.*'] });
  const other = await WebhookReceiver.start();
  await service.create(globex, { url: other.url, events: ['*'] });
  const repoKey = 'github.com/acme/widgets';
  await store.tests.writeTestCases([], [{ kind: 'quarantine', repoKey, testCaseId: 'tc', at: clock.now().toISOString(), quarantined: true }]);
  await dispatcher().runOnce();
  expect(receiver.accepted().map((r) => JSON.parse(r.body).type)).toEqual(['test_case.quarantine_changed']);
  expect(JSON.parse(receiver.accepted()[0]!.body).data.repo).toEqual({ host: 'github.com', owner: 'acme', name: 'widgets' });
  expect(other.requests).toEqual([]);
  await other.close();
});

test('a slack subscription gets a short text for merged, failed and cancelled only', async () => {
  await service.create(acme, { url: receiver.url, events: ['*'], format: 'slack' });
  const queue = aQueue({ orgId: acme.id, version: 0 });
  await store.queues.insertQueue(queue, queueEvents(null, queue, clock.now().toISOString()));
  const entry = anEntry(queue.id, { prNumber: 12, prTitle: 'Fix the widget' });
  const merged = transition(transition(entry, 'PENDING', reason('ready', 'ready'), clock.now()), 'MERGED', reason('merged', 'merged'), clock.now());
  const v1 = { ...queue, version: 1, entries: [merged] };
  await store.queues.commitQueue(v1, 0, { events: queueEvents(queue, v1, clock.now().toISOString()) });
  await dispatcher().runOnce();
  const bodies = receiver.accepted().map((r) => JSON.parse(r.body) as { text: string });
  expect(bodies).toHaveLength(1);
  expect(bodies[0]!.text).toContain('acme/widgets#12');
  expect(bodies[0]!.text).toContain('merged');
});

test('a subscription failing for 3 days is disabled and says why; retries follow the schedule until then', async () => {
  receiver.mode = 'fail';
  const hook = await service.create(acme, { url: receiver.url, events: ['queue.*'] });
  const queue = aQueue({ orgId: acme.id, version: 0 });
  await store.queues.insertQueue(queue, queueEvents(null, queue, clock.now().toISOString()));
  const d = dispatcher({ schedule: [HOUR, 6 * HOUR, 24 * HOUR, 24 * HOUR, 24 * HOUR, 24 * HOUR] });

  await d.runOnce();
  expect(receiver.requests).toHaveLength(1);
  clock.advance(HOUR - 1000);
  await d.runOnce();
  expect(receiver.requests).toHaveLength(1);
  clock.advance(1000);
  await d.runOnce();
  expect(receiver.requests).toHaveLength(2);

  // Attempts at 7 h, 31 h, 55 h: still enabled; at 79 h (over 72 h of failures) it is disabled.
  for (const wait of [6 * HOUR, 24 * HOUR, 24 * HOUR]) {
    clock.advance(wait);
    await d.runOnce();
  }
  expect((await service.list(acme)).webhooks[0]!.enabled).toBe(true);
  clock.advance(24 * HOUR);
  await d.runOnce();
  const [listed] = (await service.list(acme)).webhooks;
  expect(listed!.enabled).toBe(false);
  expect(listed!.disabledReason).toMatch(/every delivery failed since .* \(last: the receiver answered 500\)/);
  const log = (await service.deliveries(acme, { webhookId: hook.id, pageSize: 10, pageToken: '' })).deliveries;
  expect(log[0]).toMatchObject({ status: 'pending', attempts: 6, responseStatus: 500 });

  // Disabled: nothing more is sent; enabled again by a user, the delivery goes out.
  clock.advance(48 * HOUR);
  await d.runOnce();
  expect(receiver.requests).toHaveLength(6);
  receiver.mode = 'ok';
  await service.update(acme, { id: hook.id, enabled: true });
  await d.runOnce();
  expect(receiver.accepted()).toHaveLength(1);
  expect((await service.list(acme)).webhooks[0]).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
});

test('stop does not wait for a receiver that hangs; the delivery is sent again after a restart', async () => {
  receiver.mode = 'hang';
  await service.create(acme, { url: receiver.url, events: ['queue.*'] });
  const queue = aQueue({ orgId: acme.id, version: 0 });
  await store.queues.insertQueue(queue, queueEvents(null, queue, clock.now().toISOString()));
  // A minute to answer: were stop to wait for the request, this test would time out.
  const d = new WebhookDispatcher({ store, clock, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS, timeoutMs: 60_000, pollMs: 10 });
  d.start();
  while (receiver.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
  await d.stop();
  const [pending] = (await service.deliveries(acme, { pageSize: 10, pageToken: '' })).deliveries;
  expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

  // The claim lapses (twice the timeout); then a new dispatcher sends it.
  receiver.mode = 'ok';
  clock.advance(120_001);
  await new WebhookDispatcher({ store, clock, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS }).runOnce();
  expect(receiver.accepted()).toHaveLength(1);
});

test('a pass with more deliveries than one store write holds sends each event once to each webhook', async () => {
  const hooks = 10;
  const prs = 40;
  for (let i = 0; i < hooks; i++) await service.create(acme, { url: receiver.url, events: ['pull_request.*'] });
  const queue = aQueue({ orgId: acme.id, version: 0 });
  await store.queues.insertQueue(queue);
  const v1 = { ...queue, version: 1, entries: Array.from({ length: prs }, (_, i) => anEntry(queue.id, { prNumber: i + 1 })) };
  await store.queues.commitQueue(v1, 0, { events: queueEvents(queue, v1, clock.now().toISOString()) });

  const d = dispatcher();
  while ((await d.runOnce()) > 0);
  const sent = receiver.requests.map((r) => JSON.parse(r.body) as { type: string; data: { pullRequest: { prNumber: number } } });
  expect(sent).toHaveLength(prs * hooks);
  const perPr = new Map<number, number>();
  for (const body of sent) perPr.set(body.data.pullRequest.prNumber, (perPr.get(body.data.pullRequest.prNumber) ?? 0) + 1);
  expect([...perPr.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: prs }, (_, i) => i + 1));
  expect(new Set(perPr.values())).toEqual(new Set([hooks]));
  expect(await store.outbox.undispatchedEvents(10)).toEqual([]);
});

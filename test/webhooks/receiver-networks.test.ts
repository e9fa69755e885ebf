import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { pino } from 'pino';
import type { Org } from '../../src/domain/org.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { loadConfig } from '../../src/config/load-config.js';
import { ServiceError } from '../../src/service/errors.js';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { postDelivery } from '../../src/webhooks/post-delivery.js';
import { ReceiverNetworks } from '../../src/webhooks/receiver-networks.js';
import { LOOPBACK_NETWORKS, WebhookReceiver } from '../e2e/webhook-receiver.js';
import { TestClock } from '../http/helpers/test-app.js';
import { aQueue } from '../store/fixtures.js';

/**
 * Outbound webhooks do not reach inside the network: refused at create and update (400 naming `url`)
 * and at every delivery, on the addresses actually connected to; MERGEQ_WEBHOOK_ALLOWED_NETWORKS
 * opens a network. The delivery log never carries what the remote said.
 */

let store: Store;
let clock: TestClock;
let acme: Org;
let receiver: WebhookReceiver;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
  clock = new TestClock();
  acme = { id: randomUUID(), slug: 'acme', owners: ['github.com/acme'], createdAt: clock.now().toISOString() };
  await store.orgs.createOrg(acme);
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await receiver.close();
  await store.close();
});

const INSIDE = [
  'https://169.254.169.254/latest/meta-data/',
  'https://[fd00:ec2::254]/latest',
  'https://metadata.google.internal/computeMetadata/v1/',
  'https://10.1.2.3/h',
  'https://172.16.0.1/h',
  'https://172.31.255.254/h',
  'https://192.168.1.1/h',
  'https://[fe80::1]/h',
  'https://100.64.0.1/h',
  'https://100.100.100.200/latest',
  'https://0.0.0.0/h',
  'https://[::]/h',
  'https://127.0.0.1/h',
  'https://127.1/h',
  'https://2130706433/h',
  'https://0x7f.0.0.1/h',
  'https://[::1]/h',
  'https://[::ffff:127.0.0.1]/h',
  'https://[::ffff:a9fe:a9fe]/h',
  'https://localhost/h',
  'http://127.0.0.1:22/',
  'http://localhost:6379/',
];

test.each(INSIDE)('%s is refused at create and update with a 400 naming url', async (url) => {
  const service = new WebhookService({ store, clock });
  const create = service.create(acme, { url, events: ['*'] });
  await expect(create).rejects.toBeInstanceOf(ServiceError);
  await expect(create).rejects.toMatchObject({ status: 400, errors: [{ path: 'url', message: expect.stringMatching(/inside the network|must be https/) }] });
  const hook = await service.create(acme, { url: 'https://93.184.216.34/h', events: ['*'] });
  await expect(service.update(acme, { id: hook.id, url })).rejects.toMatchObject({ status: 400, errors: [{ path: 'url' }] });
  expect((await service.list(acme)).webhooks.map((w) => w.url)).toEqual(['https://93.184.216.34/h']);
});

test('public receivers are accepted, and a name that does not resolve yet is accepted over https (checked at delivery)', async () => {
  const service = new WebhookService({ store, clock });
  for (const url of ['https://93.184.216.34/h', 'https://[2606:4700::1111]/h', 'https://hooks.invalid/h']) {
    await expect(service.create(acme, { url, events: ['*'] })).resolves.toMatchObject({ url });
  }
});

test('MERGEQ_WEBHOOK_ALLOWED_NETWORKS lets a self-hosted install deliver to its own network, http included', async () => {
  const config = loadConfig({ MERGEQ_WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/8, 127.0.0.0/8,fd00::/8' });
  expect(config.webhookAllowedNetworks).toEqual(['10.0.0.0/8', '127.0.0.0/8', 'fd00::/8']);
  expect(() => loadConfig({ MERGEQ_WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' })).toThrow(/MERGEQ_WEBHOOK_ALLOWED_NETWORKS must be comma-separated networks/);
  const service = new WebhookService({ store, clock, allowedNetworks: config.webhookAllowedNetworks! });
  for (const url of ['http://10.1.2.3/h', 'https://[fd00::5]/h', 'http://127.0.0.1:9000/h', 'http://localhost/h']) {
    await expect(service.create(acme, { url, events: ['*'] })).resolves.toMatchObject({ url });
  }
  // Only the networks named: another private network and the metadata name stay refused.
  for (const url of ['https://192.168.1.1/h', 'https://169.254.169.254/h', 'https://metadata.google.internal/h']) {
    await expect(service.create(acme, { url, events: ['*'] })).rejects.toMatchObject({ status: 400 });
  }
});

/** A subscription stored as is (e.g. created before the check existed), and one queue event for it. */
async function storedSubscription(url: string): Promise<string> {
  const id = `wh_${randomUUID()}`;
  const branch = `b-${id}`;
  const now = clock.now().toISOString();
  await store.outbox.insertSubscription({
    id, orgId: acme.id, url, format: 'standard', events: ['*'], repo: null, repoKey: null, branch, description: null,
    secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: now, updatedAt: now,
  });
  const queue = aQueue({ orgId: acme.id, version: 0, branch });
  await store.queues.insertQueue(queue, queueEvents(null, queue, now));
  return id;
}

async function lastErrors(subscriptionId: string, allowedNetworks: readonly string[] = []): Promise<(string | null)[]> {
  await new WebhookDispatcher({ store, clock, logger: pino({ level: 'silent' }), timeoutMs: 2000, allowedNetworks }).runOnce();
  const { rows } = await store.outbox.listDeliveries(acme.id, { subscriptionId }, { offset: 0, limit: 10 });
  return rows.map((d) => d.lastError);
}

test('every delivery checks again: a stored receiver inside the network gets nothing, the log says "refused: private address"', async () => {
  const port = new URL(receiver.url).port;
  const byName = await storedSubscription(`http://localhost:${port}/hooks`);
  expect(await lastErrors(byName)).toEqual(['refused: private address']);
  const byAddress = await storedSubscription(`http://[::ffff:127.0.0.1]:${port}/hooks`);
  expect(await lastErrors(byAddress)).toEqual(['refused: private address']);
  expect(receiver.requests).toEqual([]);
});

test('the delivery log says "connection failed", never the remote\'s banner or error text', async () => {
  const banner = net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n'));
  await new Promise<void>((resolve) => banner.listen(0, '127.0.0.1', resolve));
  const bannerPort = (banner.address() as net.AddressInfo).port;
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const closedPort = (closed.address() as net.AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  try {
    const toBanner = await storedSubscription(`http://127.0.0.1:${bannerPort}/`);
    const toNothing = await storedSubscription(`http://127.0.0.1:${closedPort}/`);
    expect(await lastErrors(toBanner, LOOPBACK_NETWORKS)).toEqual(['connection failed']);
    expect(await lastErrors(toNothing, LOOPBACK_NETWORKS)).toEqual(['connection failed']);
  } finally {
    banner.close();
  }
});

describe('the connection goes to the address that was checked (a rebinding name cannot pass)', () => {
  const subscription = () => ({
    id: 'wh_1', orgId: acme.id, url: `http://rebinding.test:${new URL(receiver.url).port}/hooks`, format: 'standard' as const, events: ['*'], repo: null, repoKey: null,
    branch: null, description: null, secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: '', updatedAt: '',
  });
  const event = () => queueEvents(null, aQueue({ orgId: acme.id, version: 0 }), clock.now().toISOString())[0]!;

  test('checked allowed, then resolving elsewhere: delivered to the checked address, the name is not resolved again', async () => {
    const answers = ['127.0.0.1', '10.9.9.9'];
    let lookups = 0;
    const lookup = async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }];
    const result = await postDelivery(subscription(), event(), clock, { networks: new ReceiverNetworks(['127.0.0.1/32']), timeoutMs: 2000, lookup });
    expect(result).toEqual({ ok: true, status: 204 });
    expect(lookups).toBe(1);
    expect(receiver.requests).toHaveLength(1);
  });

  test('checked private, then resolving to an allowed address: refused, nothing sent', async () => {
    const answers = ['192.168.0.10', '127.0.0.1'];
    let lookups = 0;
    const lookup = async () => [{ address: answers[Math.min(lookups++, 1)]!, family: 4 }];
    const result = await postDelivery(subscription(), event(), clock, { networks: new ReceiverNetworks(['127.0.0.1/32']), timeoutMs: 2000, lookup });
    expect(result).toEqual({ ok: false, status: null, error: 'refused: private address' });
    expect(receiver.requests).toEqual([]);
  });

  test('a name with one private address among public ones is refused', async () => {
    const lookup = async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }];
    const result = await postDelivery(subscription(), event(), clock, { networks: new ReceiverNetworks(), timeoutMs: 2000, lookup });
    expect(result).toMatchObject({ ok: false, error: 'refused: private address' });
  });
});

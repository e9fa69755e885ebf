import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { positiveInt } from './option-numbers.js';
import { pino } from 'pino';
import type { Org } from '../domain/org.js';
import { systemClock } from '../domain/clock.js';
import { NoGitHost } from '../githost/none.js';
import { QueueService } from '../service/queue/queue-service.js';
import { WebhookService } from '../service/webhooks/webhook-service.js';
import { openSqliteStore, SQLITE_FILE } from '../store/open.js';
import type { Store } from '../store/store.js';
import { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { signedHeaders } from '../webhooks/signing.js';

/**
 * `npm run bench:events [-- --submits 300 --events 1000 --subscriptions 10]`, in one process and one
 * run, on a SQLite file:
 * 1. submit latency (QueueService.submitPullRequest, the outbox write included) with no subscription
 *    and with 10, the dispatcher running in both; ratio of the medians and p99s;
 * 2. deliveries per second of the dispatcher to a local receiver (node:http answering 204), against
 *    a baseline of the same number of signed POSTs sent straight with the same concurrency.
 * Writes bench/results/events.json.
 */
const DEFAULT_JSON = fileURLToPath(new URL('../../bench/results/events.json', import.meta.url));
const REPO = { host: 'github.com', owner: 'bench', name: 'events' };

const opts = new Command()
  .name('bench-events')
  .option('--submits <n>', 'submits timed per case', positiveInt, 300)
  .option('--events <n>', 'events whose delivery is timed', positiveInt, 1000)
  .option('--subscriptions <n>', 'subscriptions of the organization', positiveInt, 10)
  .option('--concurrency <n>', 'deliveries in flight at once', positiveInt, 16)
  .option('--json <file>', 'where to write the results', DEFAULT_JSON)
  .parse()
  .opts<{ submits: number; events: number; subscriptions: number; concurrency: number; json: string }>();

const received = { count: 0 };
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.count++;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const dir = mkdtempSync(join(tmpdir(), 'mergeq-bench-events-'));
const store = await openSqliteStore(join(dir, SQLITE_FILE));
const clock = systemClock;
const org: Org = { id: randomUUID(), slug: 'bench', owners: ['github.com/bench'], createdAt: clock.now().toISOString() };
await store.orgs.createOrg(org);
const queueService = new QueueService({ store, gitHost: new NoGitHost(), clock, notifier: { notify() {} } });
// The receiver is on loopback, which is refused unless allowed (docs/webhooks.md).
const LOOPBACK = ['127.0.0.0/8'];
const webhooks = new WebhookService({ store, clock, allowedNetworks: LOOPBACK });
const logger = pino({ level: process.env.BENCH_LOG ?? 'silent' });

console.log(
  `bench:events: ${opts.submits} submits per case, ${opts.events} events × ${opts.subscriptions} subscriptions delivered, concurrency ${opts.concurrency}, SQLite file`,
);

async function timeSubmits(branch: string, firstPr: number): Promise<number[]> {
  await queueService.createQueue(org, { repo: REPO, targetBranch: branch });
  const latencies: number[] = [];
  for (let i = 0; i < opts.submits; i++) {
    const t0 = performance.now();
    await queueService.submitPullRequest(org, { repo: REPO, targetBranch: branch, pr: { number: firstPr + i } });
    latencies.push(performance.now() - t0);
    // Each submit is its own request in the server: the dispatcher gets its turns in between.
    await new Promise((r) => setImmediate(r));
  }
  return latencies;
}

async function pending(s: Store): Promise<number> {
  return (await s.outbox.listDeliveries(org.id, { status: 'pending' }, { offset: 0, limit: 1 })).total;
}

/** Until every event is fanned out and no delivery is pending. */
async function untilDelivered(): Promise<void> {
  while ((await store.outbox.undispatchedEvents(1)).length > 0 || (await pending(store)) > 0) await new Promise((r) => setTimeout(r, 20));
}

// 1. Submit latency, no subscription vs `subscriptions`, the dispatcher running both times.
const dispatcher = new WebhookDispatcher({ store, clock, logger, concurrency: opts.concurrency, pollMs: 50, allowedNetworks: LOOPBACK });
dispatcher.start();
await timeSubmits('warmup', 1);
const without = await timeSubmits('none', 100_000);
for (let i = 0; i < opts.subscriptions; i++) await webhooks.create(org, { url: receiverUrl, events: ['*'] });
const withSubs = await timeSubmits('subscribed', 200_000);
await untilDelivered();
await dispatcher.stop();

// 2. Delivery throughput: events written with the dispatcher stopped, then drained.
await queueService.createQueue(org, { repo: REPO, targetBranch: 'throughput' });
for (let i = 0; i < opts.events - 1; i++) await queueService.submitPullRequest(org, { repo: REPO, targetBranch: 'throughput', pr: { number: 300_000 + i } });
const before = received.count;
const drain = new WebhookDispatcher({ store, clock, logger, concurrency: opts.concurrency, pollMs: 20, allowedNetworks: LOOPBACK });
const expected = opts.events * opts.subscriptions;
const t0 = performance.now();
drain.start();
// Watching the receiver's count costs nothing; counting pending rows would compete with the dispatcher.
const deadline = Date.now() + 600_000;
while (received.count - before < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
const seconds = (performance.now() - t0) / 1000;
// Stopped only once every result is recorded: stopping aborts the requests in flight, whose
// deliveries would then stay pending with no dispatcher left to send them.
await untilDelivered();
await drain.stop();
const deliveries = received.count - before;

// Baseline: the same number of signed POSTs straight to the receiver, same concurrency.
const body = JSON.stringify({ id: 'evt', type: 'pull_request.submitted', timestamp: new Date().toISOString(), data: { pad: 'x'.repeat(1500) } });
let next = 0;
const b0 = performance.now();
await Promise.all(
  Array.from({ length: opts.concurrency }, async () => {
    while (next++ < deliveries) {
      const res = await fetch(receiverUrl, { method: 'POST', headers: signedHeaders('whsec_YmVuY2g=', 'evt', 1, body), body });
      await res.body?.cancel();
    }
  }),
);
const baselineSeconds = (performance.now() - b0) / 1000;

const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  return { p50Ms: q(0.5), p99Ms: q(0.99), meanMs: xs.reduce((a, b) => a + b, 0) / xs.length };
};
const result = {
  settings: opts,
  submit: {
    noSubscriptions: stats(without),
    withSubscriptions: stats(withSubs),
    p50Ratio: stats(withSubs).p50Ms / stats(without).p50Ms,
    p99Ratio: stats(withSubs).p99Ms / stats(without).p99Ms,
  },
  delivery: {
    events: opts.events,
    deliveries,
    seconds,
    deliveriesPerSec: deliveries / seconds,
    eventsPerSec: opts.events / seconds,
    baselinePostsPerSec: deliveries / baselineSeconds,
    ratioToBaseline: deliveries / seconds / (deliveries / baselineSeconds),
  },
};
const fmt = (n: number) => n.toFixed(2);
console.log(
  `submit p50 ${fmt(result.submit.noSubscriptions.p50Ms)} ms → ${fmt(result.submit.withSubscriptions.p50Ms)} ms with ${opts.subscriptions} subscriptions (${fmt(result.submit.p50Ratio)}×); ` +
    `p99 ${fmt(result.submit.noSubscriptions.p99Ms)} → ${fmt(result.submit.withSubscriptions.p99Ms)} ms (${fmt(result.submit.p99Ratio)}×)`,
);
console.log(
  `delivery: ${deliveries} deliveries of ${opts.events} events in ${fmt(seconds)} s = ${fmt(result.delivery.deliveriesPerSec)} deliveries/s ` +
    `(${fmt(result.delivery.eventsPerSec)} events/s to ${opts.subscriptions} subscriptions); ` +
    `plain signed POSTs ${fmt(result.delivery.baselinePostsPerSec)}/s; ratio ${fmt(result.delivery.ratioToBaseline)}×`,
);
mkdirSync(dirname(opts.json), { recursive: true });
writeFileSync(opts.json, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${opts.json}`);

await store.close();
receiver.close();
rmSync(dir, { recursive: true, force: true });
if (deliveries !== expected) {
  console.error(`expected ${expected} deliveries, the receiver got ${deliveries}`);
  process.exitCode = 1;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import request from 'supertest';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { SandboxService } from './sandbox-service.js';
import { LOOPBACK_NETWORKS, signatureVerifies, WebhookReceiver } from './webhook-receiver.js';

/**
 * Outbound webhooks end to end: the service wired as in sandbox mode on a SQLite file, a real HTTP
 * receiver on 127.0.0.1, and the dispatcher with a short retry schedule (30 s, then every minute, in
 * the queue's virtual time). Ten PRs, the 3rd bad. The receiver answers 500 for the first minutes,
 * then hangs (the dispatcher times out), then recovers.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const PR_COUNT = 10;
const BAD_INDEX = 2;
const SCHEDULE = [30_000, ...Array.from({ length: 40 }, () => 60_000)];

interface PrEventBody {
  id: string;
  type: string;
  timestamp: string;
  data: {
    queue: { id: string; branch: string };
    pullRequest: {
      prNumber: number;
      state: string;
      reason: { code: string; message: string } | null;
      failingChecks: { context: string; state: string }[];
      history: { state: string; reason: { code: string } }[];
    };
  };
}
interface HistoryRecord {
  history: { state: string; reason: { code: string } }[];
}

let dir: string;
let svc: SandboxService;
let acme: WebhookReceiver;
let globex: WebhookReceiver;
let dispatcher: WebhookDispatcher;
let secret: string;
const numbers: number[] = [];
const histories = new Map<number, HistoryRecord['history']>();

async function deliverAll(): Promise<void> {
  while ((await dispatcher.runOnce()) > 0) {
    /* until a pass has nothing left to do now */
  }
}

async function pendingDeliveries(): Promise<number> {
  return (await svc.ok('webhooks/deliveries', { status: 'pending' })).body.page.total_rows as number;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mergeq-webhooks-'));
  svc = await SandboxService.start({}, { dbPath: join(dir, 'mergeq.db') });
  acme = await WebhookReceiver.start();
  globex = await WebhookReceiver.start();
  dispatcher = new WebhookDispatcher({ store: svc.store, clock: svc.time, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS, retryScheduleMs: SCHEDULE, timeoutMs: 300 });

  secret = (await svc.ok('webhooks/create', { url: acme.url, events: ['pull_request.*', 'queue.*'] })).body.secret as string;
  const other = await request(svc.app)
    .post('/v1/webhooks/create')
    .set('x-api-token', svc.otherOrgToken)
    .send({ url: globex.url, events: ['*'] });
  expect(other.status).toBe(200);

  acme.mode = 'fail';
  await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 4 });
  for (let i = 0; i < PR_COUNT; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: i === BAD_INDEX, ciMinutes: 10 })).number);
  for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });

  for (let minute = 1; minute <= 120; minute++) {
    if (minute === 6) acme.mode = 'hang';
    if (minute === 12) acme.mode = 'ok';
    await svc.advanceMinutes(1);
    await deliverAll();
    const quiet = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests.length === 0;
    if (quiet && minute > 12 && (await pendingDeliveries()) === 0) break;
  }
  for (const n of numbers) histories.set(n, ((await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as HistoryRecord).history);
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  await svc?.stop();
  await acme?.close();
  await globex?.close();
  rmSync(dir, { recursive: true, force: true });
});

const bodyOf = (r: { body: string }) => JSON.parse(r.body) as PrEventBody;

/** The event each transition of a PR's history is, as docs/webhooks.md lists them. */
function expectedEvent(step: { state: string; reason: { code: string } }, index: number): string | null {
  if (index === 0) return 'pull_request.submitted';
  if (step.reason.code === 'restarted_by_user' || step.reason.code === 'readmitted') return 'pull_request.restarted';
  const byState: Record<string, string | null> = {
    NOT_READY: null,
    PENDING: 'pull_request.ready',
    TESTING: 'pull_request.testing',
    TESTS_PASSED: 'pull_request.tests_passed',
    MERGED: 'pull_request.merged',
    FAILED: 'pull_request.failed',
    CANCELLED: 'pull_request.cancelled',
    PENDING_FAILURE: 'pull_request.pending_failure',
  };
  return byState[step.state] ?? null;
}

test('the receiver failed first: 500s, then requests that got no answer', () => {
  expect(acme.requests.some((r) => r.answered === 500)).toBe(true);
  expect(acme.requests.some((r) => r.answered === null)).toBe(true);
});

test('after it recovered, each PR got exactly the events of its history, in order', () => {
  const accepted = acme.accepted().map(bodyOf);
  for (const n of numbers) {
    const expected = histories.get(n)!.map(expectedEvent).filter((t): t is string => t !== null);
    const got = accepted.filter((e) => e.type.startsWith('pull_request.') && e.data.pullRequest.prNumber === n).map((e) => e.type);
    expect({ pr: n, events: got }).toEqual({ pr: n, events: expected });
  }
  // Exactly: no event was answered 2xx twice, and the ten PRs made well over a few dozen events.
  expect(acme.requests.filter((r) => r.answered === 204).length).toBe(accepted.length);
  expect(accepted.length).toBeGreaterThan(5 * PR_COUNT);
  const good = numbers.filter((_, i) => i !== BAD_INDEX);
  for (const n of good) expect(accepted.filter((e) => e.data.pullRequest?.prNumber === n).at(-1)?.type).toBe('pull_request.merged');
});

test('every request, failed ones included, verifies with the secret answered at creation', () => {
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(acme.requests.length).toBeGreaterThan(0);
  for (const r of acme.requests) expect({ id: r.id, verifies: signatureVerifies(secret, r) }).toEqual({ id: r.id, verifies: true });
  expect(signatureVerifies('whsec_' + Buffer.from('another key').toString('base64'), acme.requests[0]!)).toBe(false);
});

test('a retried event keeps its webhook-id, and distinct events have distinct ids', () => {
  const bodiesById = new Map<string, Set<string>>();
  for (const r of acme.requests) {
    const e = bodyOf(r);
    expect(e.id).toBe(r.id);
    bodiesById.set(r.id, (bodiesById.get(r.id) ?? new Set()).add(`${e.type}#${e.data.pullRequest?.prNumber ?? ''}#${e.timestamp}`));
  }
  for (const [id, kinds] of bodiesById) expect({ id, kinds: kinds.size }).toEqual({ id, kinds: 1 });
  expect(acme.requests.length).toBeGreaterThan(acme.accepted().length);
});

test("the bad PR's failed event has the PR record with its reason and the failing checks", () => {
  const failed = acme.accepted().map(bodyOf).find((e) => e.type === 'pull_request.failed');
  expect(failed?.data.pullRequest.prNumber).toBe(numbers[BAD_INDEX]);
  expect(failed?.data.pullRequest.state).toBe('FAILED');
  expect(failed?.data.pullRequest.reason?.code).toBe('tests_failed');
  expect(failed?.data.pullRequest.failingChecks.length).toBeGreaterThan(0);
  expect(failed?.data.pullRequest.failingChecks.every((c) => c.state === 'failure' || c.state === 'error')).toBe(true);
  expect(failed?.data.queue).toMatchObject({ branch: 'main' });
  expect(failed?.data.queue).not.toHaveProperty('enqueuedPullRequests');
});

test('queue.created came first of its queue', () => {
  const queueEvents = acme.accepted().map(bodyOf).filter((e) => e.type.startsWith('queue.'));
  expect(queueEvents.map((e) => e.type)).toEqual(['queue.created']);
});

test("another organization's receiver got nothing of this queue", () => {
  expect(globex.requests).toEqual([]);
});

test('the delivery log pages through every delivery; redeliver sends one again with the same webhook-id', async () => {
  const all: { id: string; status: string; attempts: number; eventId: string; responseStatus: number | null }[] = [];
  let token = '';
  let pages = 0;
  do {
    const page = (await svc.ok('webhooks/deliveries', { page_query: { page_size: 25, page_token: token } })).body;
    all.push(...page.deliveries);
    token = page.page.next_page_token;
    pages++;
  } while (token && pages < 100);
  expect(all.length).toBe(acme.accepted().length);
  expect(all.every((d) => d.status === 'succeeded' && d.responseStatus === 204)).toBe(true);
  expect(all.some((d) => d.attempts > 1)).toBe(true);

  const before = acme.requests.length;
  const target = all.at(-1)!;
  const redelivered = await svc.ok('webhooks/redeliver', { deliveryId: target.id });
  expect(redelivered.body.status).toBe('pending');
  await deliverAll();
  expect(acme.requests.slice(before).map((r) => r.id)).toEqual([target.eventId]);

  const otherOrg = await request(svc.app).post('/v1/webhooks/redeliver').set('x-api-token', svc.otherOrgToken).send({ deliveryId: target.id });
  expect(otherOrg.status).toBe(404);
});

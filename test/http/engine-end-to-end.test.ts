import { pino } from 'pino';
import request from 'supertest';
import { Engine } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { createHttpApp } from '../../src/http/app.js';
import { metricsRenderer } from '../../src/metrics/queue-metrics.js';
import { apiServices } from '../../src/service/api-services.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { QueueService } from '../../src/service/queue/queue-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { ACME_REPO, prRef, queueRef } from './helpers/requests.js';
import { memoryLogger, seedTenants } from './helpers/test-app.js';

/**
 * The API driving the real engine (the QueueService's notifier) over the sandbox git host and
 * virtual time: what a client submits gets tested and merged, and the API reports it.
 */

const MIN = 60_000;
let store: Store;
let time: VirtualTime;
let sandbox: SandboxGitHost;
let engine: Engine;
let app: ReturnType<typeof createHttpApp>;
let token: string;

beforeEach(async () => {
  time = new VirtualTime(Date.UTC(2026, 10, 22, 10, 0, 0));
  sandbox = new SandboxGitHost({ clock: time, scheduler: time, ci: { duration: { kind: 'fixed', minutes: 10 } } });
  store = await openSqliteStore(':memory:');
  engine = new Engine({ store, gitHost: sandbox, clock: time, scheduler: time, logger: pino({ level: 'silent' }), pollIntervalMs: Number.POSITIVE_INFINITY });
  sandbox.onStatus((e) => void engine.recordStatuses(e.repo, e.sha, e.checks).catch(() => undefined));
  token = (await seedTenants(store, time.now())).acme.token;
  app = createHttpApp({
    ...apiServices(store, time),
    queueService: new QueueService({ store, gitHost: sandbox, clock: time, notifier: engine }),
    renderMetrics: metricsRenderer(new MetricsService(store)),
    logger: memoryLogger().logger,
    clock: time,
    rateLimit: false,
  });
});
afterEach(async () => {
  await engine.stop();
  await store.close();
});

const post = (op: string, body: unknown) =>
  request(app).post(`/v1/${op}`).set('x-api-token', token).set('Content-Type', 'application/json').send(JSON.stringify(body));
const settle = () => engine.whenIdle();
const advance = async (ms: number) => {
  await time.advanceBy(ms, settle);
  await settle();
};

test('submitted PRs are tested and merged; the API reports each step', async () => {
  expect((await post('createQueue', { ...queueRef(), concurrency: 2 })).status).toBe(200);
  const a = sandbox.openPullRequest(ACME_REPO, { title: 'A' });
  const b = sandbox.openPullRequest(ACME_REPO, { title: 'B' });

  expect((await post('submitPullRequest', prRef(a.number))).status).toBe(200);
  expect((await post('submitPullRequest', prRef(b.number))).status).toBe(200);
  await settle();

  // The service's notify made the engine start runs without any other prompt.
  const testing = (await post('getQueue', queueRef())).body;
  expect(testing.enqueuedPullRequests.map((p: { prNumber: number; state: string; position: number }) => [p.prNumber, p.state, p.position])).toEqual([
    [a.number, 'TESTING', 1],
    [b.number, 'TESTING', 2],
  ]);
  const inFlight = (await post('getMergeQueueTestingDetails', queueRef())).body.testRuns;
  expect(inFlight).toHaveLength(2);
  const runOfB = inFlight.find((r: { testedPullRequests: { prNumber: number }[] }) => r.testedPullRequests.length === 2);
  expect(runOfB).toMatchObject({ kind: 'main', status: 'pending', dependentPrs: [a.number] });
  expect(runOfB.testedPullRequests.map((p: { prTitle: string }) => p.prTitle)).toEqual(['A', 'B']);

  await advance(11 * MIN);

  for (const pr of [a, b]) {
    const status = await post('getSubmittedPullRequest', prRef(pr.number));
    expect(status.body).toMatchObject({ state: 'MERGED', isCurrentlySubmittedToQueue: false, position: null });
    expectProblem409(await post('cancelPullRequest', prRef(pr.number)));
  }
  expect((await post('getQueue', queueRef())).body.enqueuedPullRequests).toEqual([]);
  expect(sandbox.mergeCount(ACME_REPO, a.number)).toBe(1);
  const runsOfA = (await post('getMergeQueueTestingDetails', { ...queueRef(), pr: { number: a.number } })).body.testRuns;
  expect(runsOfA.length).toBeGreaterThan(0);
  expect(runsOfA.every((r: { status: string }) => r.status !== 'pending')).toBe(true);

  // An emptied queue can be deleted.
  expect((await post('deleteQueue', queueRef())).body).toEqual({ deleted: true });
});

test('a paused queue takes PRs but starts nothing until it runs again', async () => {
  await post('createQueue', { ...queueRef(), state: 'paused' });
  const a = sandbox.openPullRequest(ACME_REPO);
  await post('submitPullRequest', prRef(a.number));
  await settle();
  expect((await post('getMergeQueueTestingDetails', queueRef())).body.testRuns).toEqual([]);

  await post('updateQueue', { ...queueRef(), state: 'running' });
  await settle();
  expect((await post('getSubmittedPullRequest', prRef(a.number))).body.state).toBe('TESTING');
});

function expectProblem409(res: request.Response): void {
  expect([res.status, res.body.code]).toEqual([409, 'invalid_state']);
}

test('the engine keeps nothing in memory for queues that were deleted', async () => {
  for (let i = 0; i < 40; i++) {
    const ref = { repo: ACME_REPO, targetBranch: `release-${i}` };
    expect((await post('createQueue', ref)).status).toBe(200);
    await settle();
    expect((await post('deleteQueue', ref)).status).toBe(200);
    await settle();
  }
  expect((await post('createQueue', queueRef())).status).toBe(200);
  await settle();
  expect(engine.queuesInMemory).toBe(1);
});

import { pino } from 'pino';
import request from 'supertest';
import { Engine } from '../../src/engine/engine.js';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { sandboxRoutes } from '../../src/githost/sandbox/routes.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { createHttpApp } from '../../src/http/app.js';
import { renderMetrics } from '../../src/metrics/queue-metrics.js';
import { QuarantineService } from '../../src/service/quarantine-service.js';
import { QueueService } from '../../src/service/queue-service.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { seedTenants } from '../http/helpers/test-app.js';

/**
 * Parallel mode as a user of the REST API sees it (wired like `mergeq serve` with the sandbox git
 * host; only the clock is virtual): a slow PR, then two PRs on other targets. The two independent
 * ones are tested alone and merge first; a PR sharing the slow one's target waits for it.
 */

const MIN = 60_000;
const REPO = { host: 'github.com', owner: 'acme', name: 'monorepo' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

let time: VirtualTime;
let store: Store;
let sandbox: SandboxGitHost;
let engine: Engine;
let app: ReturnType<typeof createHttpApp>;
let token: string;

const api = (op: string, body: unknown) =>
  request(app).post(`/v1/${op}`).set('x-api-token', token).set('Content-Type', 'application/json').send(JSON.stringify(body));

async function ok(op: string, body: unknown): Promise<request.Response> {
  const res = await api(op, body);
  expect({ op, status: res.status, problem: res.status === 200 ? null : res.body }).toEqual({ op, status: 200, problem: null });
  return res;
}

async function openPull(title: string, ciMinutes: number): Promise<{ number: number; headSha: string }> {
  const res = await request(app).post('/sandbox/pulls').send({ repo: REPO, title, author: 'dev', bad: false, ciMinutes });
  expect(res.status).toBe(200);
  return { number: res.body.number as number, headSha: res.body.headSha as string };
}

const settle = () => engine.whenIdle();
const stateOf = async (n: number) => (await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as { state: string; readiness: { hasImpactedTargets: boolean } };

beforeAll(async () => {
  time = new VirtualTime(Date.UTC(2026, 10, 22, 10, 0, 0));
  sandbox = new SandboxGitHost({ clock: time, scheduler: time });
  store = await openSqliteStore(':memory:');
  engine = new Engine({ store, gitHost: sandbox, clock: time, scheduler: time, logger: pino({ level: 'silent' }) });
  sandbox.onStatus((e) => void engine.recordStatuses(e.repo, e.sha, e.checks).catch(() => undefined));
  token = (await seedTenants(store, time.now())).acme.token;
  app = createHttpApp({
    store,
    queueService: new QueueService({ store, gitHost: sandbox, clock: time, notifier: engine }),
    quarantineService: new QuarantineService(store),
    renderMetrics,
    logger: pino({ level: 'silent' }),
    clock: time,
    rateLimit: false,
    sandboxRouter: sandboxRoutes(sandbox),
  });
  engine.start();
  await ok('createQueue', { ...QUEUE, mode: 'parallel', concurrency: 10 });
});
afterAll(async () => {
  await engine?.stop();
  await store?.close();
});

test('two independent PRs submitted behind a slow one are tested alone and merge before it', async () => {
  const slow = await openPull('slow change to //core', 60);
  const docs = await openPull('docs fix', 10);
  const web = await openPull('web tweak', 10);
  const coreToo = await openPull('another //core change', 10);
  for (const pr of [slow, docs, web, coreToo]) await ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number } });
  await settle();
  // Parallel mode: nothing is ready before its impacted targets are known.
  expect((await stateOf(slow.number)).state).toBe('NOT_READY');
  expect((await stateOf(slow.number)).readiness.hasImpactedTargets).toBe(false);

  const targets: [typeof slow, string[]][] = [
    [slow, ['//core:lib', '//core:test']],
    [docs, ['//docs:site']],
    [web, ['//web:app']],
    [coreToo, ['//core:lib']],
  ];
  for (const [pr, names] of targets) {
    await ok('setImpactedTargets', { ...QUEUE, pr: { number: pr.number, sha: pr.headSha }, impactedTargets: names });
  }
  await settle();

  const runs = (await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as { testedPullRequests: { prNumber: number }[] }[];
  expect(runs.map((r) => r.testedPullRequests.map((p) => p.prNumber)).sort((a, b) => a.length - b.length || a[0]! - b[0]!)).toEqual([
    [slow.number],
    [docs.number],
    [web.number],
    [slow.number, coreToo.number],
  ]);

  for (let minute = 0; minute < 15; minute++) {
    await time.advanceBy(MIN, settle);
    await settle();
  }
  expect((await stateOf(docs.number)).state).toBe('MERGED');
  expect((await stateOf(web.number)).state).toBe('MERGED');
  expect((await stateOf(slow.number)).state).toBe('TESTING');
  // #4 shares a target with the slow one: it is tested on top of it and cannot merge before it.
  expect((await stateOf(coreToo.number)).state).toBe('TESTING');

  for (let minute = 0; minute < 50; minute++) {
    await time.advanceBy(MIN, settle);
    await settle();
  }
  expect(sandbox.mergedInOrder(REPO)).toEqual([docs.number, web.number, slow.number, coreToo.number]);
});

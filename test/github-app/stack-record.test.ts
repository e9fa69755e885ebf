import type { Express } from 'express';
import nock from 'nock';
import { pino } from 'pino';
import request from 'supertest';
import type { Org } from '../../src/domain/org.js';
import { createHttpApp } from '../../src/http/app.js';
import { displayPrefix, generateToken, hashToken } from '../../src/service/access/tokens.js';
import { metricsRenderer } from '../../src/metrics/queue-metrics.js';
import { apiServices } from '../../src/service/api-services.js';
import { MetricsService } from '../../src/service/metrics-service.js';
import { cliSandbox } from '../cli/cli-harness.js';
import { listenLocally } from '../e2e/browser.js';
import { AppHarness } from './app-harness.js';

/**
 * A native stack as the REST API shows it, through the HTTP server: the submitted PR and every entry
 * of getQueue carry `stack {id, number, kind, position, size, members}`, `number` being GitHub's;
 * the CLI's `pr status` and `queue show` name it.
 */
let h: AppHarness;
let org: Org;
let app: Express;
let token: string;

beforeEach(async () => {
  h = await AppHarness.start();
  nock.enableNetConnect('127.0.0.1'); // supertest's own server; GitHub stays the fake
  org = await h.install();
  await h.createQueue(org, { mergeMethod: 'merge_commit' });
  token = generateToken();
  const createdAt = h.time.now().toISOString();
  await h.store.orgs.createToken({ id: 'tok-1', orgId: org.id, name: 'test', hash: hashToken(token), prefix: displayPrefix(token), createdAt, revokedAt: null, lastUsedAt: null });
  app = createHttpApp({ ...apiServices(h.store, h.time), queueService: h.queueService, renderMetrics: metricsRenderer(new MetricsService(h.store)), logger: pino({ level: 'silent' }), clock: h.time, rateLimit: false });
});
afterEach(() => h.stop());

const post = (op: string, body: unknown) => request(app).post(`/v1/${op}`).set('x-api-token', token).send(body as object);
const QUEUE = () => ({ repo: h.repo, targetBranch: 'main' });

test("layer 3 of a native 4-member stack, submitted with the PRs below, shows GitHub's stack number, its place and the unit's size and members", async () => {
  h.fake.openStack([7, 8]); // stack number 1: the one asked about is number 2
  h.fake.openStack([1, 2, 3, 4]);
  const stack = h.fake.stacks.stackOf(1)!;
  expect(stack.number).toBe(2);

  const submitted = await post('submitPullRequest', { ...QUEUE(), pr: { number: 3 }, stack: { below: true } });
  expect(submitted.status).toBe(200);
  const unit = { id: `native:${stack.id}`, number: 2, kind: 'native', size: 3, members: [1, 2, 3] };
  expect(submitted.body.stack).toEqual({ ...unit, position: 3 });

  const queue = await post('getQueue', QUEUE());
  expect(queue.status).toBe(200);
  expect(queue.body.enqueuedPullRequests.map((p: { prNumber: number; stack: unknown }) => [p.prNumber, p.stack])).toEqual([
    [1, { ...unit, position: 1 }],
    [2, { ...unit, position: 2 }],
    [3, { ...unit, position: 3 }],
  ]);
  const below = await post('getSubmittedPullRequest', { ...QUEUE(), pr: { number: 1 } });
  expect(below.body.stack).toEqual({ ...unit, position: 1 });
});

test('the CLI names the native stack: pr status gives its number, the layer of the unit and its members; queue show a STACK column', async () => {
  h.fake.openStack([1, 2, 3, 4]);
  expect((await post('submitPullRequest', { ...QUEUE(), pr: { number: 3 }, stack: { below: true } })).status).toBe(200);
  const { server, base } = await listenLocally(app);
  const cli = cliSandbox();
  try {
    const env = { MERGEQ_URL: base, MERGEQ_TOKEN: token };
    const where = ['--repo', `${h.repo.owner}/${h.repo.name}`, '--branch', 'main'];
    const status = await cli.run(['pr', 'status', '2', ...where], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('  stack: #1 (native), layer 2 of 3: #1, #2, #3 (tested and landed as one unit)\n');
    const shown = (await cli.run(['queue', 'show', ...where], env)).stdout;
    expect(shown).toMatch(/^POS\s+PR\s+STACK\s+STATE/m);
    for (const n of [1, 2, 3]) expect(shown).toMatch(new RegExp(`^\\S+\\s+#${n}\\s+#1 \\(native\\) ${n}/3\\s`, 'm'));
  } finally {
    cli.cleanup();
    await new Promise((resolve) => server.close(resolve));
  }
});

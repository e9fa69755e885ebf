import request from 'supertest';
import { makeReady, mergeAndArchive, setState } from './helpers/engine-steps.js';
import { ACME_REPO, expectProblem, post, prRef, queueRef, uiSignIn } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** What the web page's queue screen reads and changes: the PRs that left the queue, and its settings. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  expect((await post(t, 'createQueue', queueRef())).status).toBe(200);
});
afterEach(async () => {
  await t.close();
});

const QUEUE_QUERY = { repo: 'github.com/acme/widgets', branch: 'main' };
const HOUR = 3_600_000;

const signIn = (token: string) => uiSignIn(t, token);

describe('the PRs that left the queue', () => {
  test('merged and failed ones of the last 24 hours are listed with their reason, the latest first; older and cancelled ones are not', async () => {
    for (const n of [1, 2, 3, 4]) await post(t, 'submitPullRequest', prRef(n));
    await makeReady(t, 'main', [1, 2, 3]);
    await mergeAndArchive(t, 'main', 1);
    t.clock.advance(2 * HOUR);
    await mergeAndArchive(t, 'main', 2);
    await setState(t, 'main', 3, 'FAILED'); // still in the document: the engine archives it at its next commit
    await post(t, 'cancelPullRequest', prRef(4));
    t.clock.advance(23 * HOUR); // #1 ended 25 hours ago

    const { cookie } = await signIn(t.acme.token);
    const res = await request(t.app).get('/ui/api/queue').query(QUEUE_QUERY).set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body.recentlyEnded).toEqual([
      { prNumber: 3, prTitle: '', prAuthor: '', state: 'FAILED', endedAt: expect.any(String), reason: { code: 'tests_passed', message: 'FAILED' }, verdict: null },
      { prNumber: 2, prTitle: '', prAuthor: '', state: 'MERGED', endedAt: expect.any(String), reason: { code: 'merged', message: 'merged' }, verdict: null },
    ]);
  });
});

describe('queue settings from the page', () => {
  const settings = (s: { cookie: string; csrfToken: string }, body: Record<string, unknown>) =>
    request(t.app).post('/ui/api/queue/settings').set('Cookie', s.cookie).set('x-csrf-token', s.csrfToken).send({ repo: ACME_REPO, targetBranch: 'main', ...body });

  test('a change is saved and answered as updateQueue answers it', async () => {
    const acme = await signIn(t.acme.token);
    const res = await settings(acme, { concurrency: 3, batch: true, mergeMethod: 'rebase' });
    expect(res.status).toBe(200);
    expect(res.body.queue).toMatchObject({ concurrency: 3, batch: true, mergeMethod: 'rebase' });
    expect((await post(t, 'getQueue', queueRef())).body).toMatchObject({ concurrency: 3, batch: true, mergeMethod: 'rebase' });
  });

  test('an invalid value is the same 400 as from /v1/updateQueue, naming the field; nothing is saved', async () => {
    const acme = await signIn(t.acme.token);
    const body = { concurrency: 0, mergeMethod: 'fast-forward' };
    const fromPage = await settings(acme, body);
    expectProblem(fromPage, 400, 'invalid_request');
    const fromApi = await post(t, 'updateQueue', { ...queueRef(), ...body });
    expect(fromPage.body.errors).toEqual(fromApi.body.errors);
    expect(fromPage.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['concurrency', 'mergeMethod']);
    expect((await post(t, 'getQueue', queueRef())).body.concurrency).toBe(1);
  });

  test('needs the CSRF token, and another organization cannot change it', async () => {
    const acme = await signIn(t.acme.token);
    expect((await settings({ ...acme, csrfToken: 'forged' }, { concurrency: 2 })).status).toBe(403);
    const globex = await signIn(t.globex.token);
    expectProblem(await settings(globex, { concurrency: 2 }), 403, 'forbidden');
    expect((await post(t, 'getQueue', queueRef())).body.concurrency).toBe(1);
  });
});

describe('freezing from the page', () => {
  const postAs = (s: { cookie: string; csrfToken: string }, path: string, body: Record<string, unknown>) =>
    request(t.app).post(`/ui/api/queue/${path}`).set('Cookie', s.cookie).set('x-csrf-token', s.csrfToken).send({ repo: ACME_REPO, targetBranch: 'main', ...body });

  test("the org's token freezes the queue (recorded as by that token, shown on the queue screen) and unfreezes it", async () => {
    const acme = await signIn(t.acme.token);
    const frozen = await postAs(acme, 'freeze', { reason: 'release 4.2' });
    expect(frozen.status).toBe(200);
    expect(frozen.body.queue.freeze).toMatchObject({ reason: 'release 4.2', by: 'test', endsAt: null });
    const screen = await request(t.app).get('/ui/api/queue').query(QUEUE_QUERY).set('Cookie', acme.cookie);
    expect(screen.body.queue.freeze).toMatchObject({ reason: 'release 4.2' });
    expect((await postAs(acme, 'unfreeze', {})).body.queue.freeze).toBeNull();
    expect((await post(t, 'getQueue', queueRef())).body.freeze).toBeNull();
  });

  test('a freeze without a reason is a 400 naming it; another organization cannot freeze the queue; no CSRF token, no freeze', async () => {
    const acme = await signIn(t.acme.token);
    const res = await postAs(acme, 'freeze', { reason: '' });
    expectProblem(res, 400, 'invalid_request');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['reason']);
    const globex = await signIn(t.globex.token);
    expect((await postAs(globex, 'freeze', { reason: 'x' })).status).toBe(403);
    expect((await request(t.app).post('/ui/api/queue/freeze').set('Cookie', acme.cookie).send({ repo: ACME_REPO, targetBranch: 'main', reason: 'x' })).status).toBe(403);
    expect((await post(t, 'getQueue', queueRef())).body.freeze).toBeNull();
  });
});

describe('a chat channel that keeps failing', () => {
  test('the Queues screen lists it, with only where its URL goes and whether it sends direct messages (never its bot token); one that delivers is not listed; another organization sees none', async () => {
    const created = await post(t, 'webhooks/create', { url: 'https://hooks.example.com/services/T1/B1/secret-part', format: 'slack_blocks', events: ['pull_request.*'], slackBotToken: 'xoxb-1-2-secretToken' });
    expect(created.status).toBe(200);
    await post(t, 'webhooks/create', { url: 'https://hooks.example.com/fine', events: ['*'] });
    const stored = (await t.store.outbox.getSubscription(created.body.id))!;
    await t.store.outbox.putSubscription({ ...stored, failingSince: '2026-11-22T09:00:00.000Z' });

    const res = await request(t.app).get('/ui/api/queues').set('Cookie', (await signIn(t.acme.token)).cookie);
    expect(res.body.failingWebhooks).toEqual([
      { id: created.body.id, format: 'slack_blocks', url: 'https://hooks.example.com/services/…', directMessages: true, failingSince: '2026-11-22T09:00:00.000Z', enabled: true, disabledReason: null },
    ]);
    expect(JSON.stringify(res.body)).not.toContain('secret-part');
    expect(JSON.stringify(res.body)).not.toContain('secretToken');
    const other = await request(t.app).get('/ui/api/queues').set('Cookie', (await signIn(t.globex.token)).cookie);
    expect(other.body.failingWebhooks).toEqual([]);
  });
});

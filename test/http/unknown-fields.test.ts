import { expectProblem, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** docs/api.md, "Unknown fields": the project's own operations refuse a field they do not know; the seed's real-client operations ignore it. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

test('a misspelled createQueue setting is a 400 naming it and the setting meant, and creates nothing', async () => {
  const res = await post(t, 'createQueue', { ...queueRef(), concurency: 4 });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: 'concurency', message: 'unknown field; did you mean concurrency?' }]);
  expect(res.body.detail).toContain('concurency: unknown field; did you mean concurrency?');
  expectProblem(await post(t, 'getQueue', queueRef()), 404, 'queue_not_found');
});

test('"branch" (the queue record\'s name) points at targetBranch, alongside the missing targetBranch', async () => {
  const res = await post(t, 'createQueue', { repo: queueRef().repo, branch: 'main' });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual(
    expect.arrayContaining([
      { path: 'targetBranch', message: 'Required' },
      { path: 'branch', message: 'unknown field; did you mean targetBranch?' },
    ]),
  );
});

test('updateQueue refuses an unknown setting and changes nothing; a name nothing resembles gets no guess', async () => {
  await post(t, 'createQueue', queueRef());
  const res = await post(t, 'updateQueue', { ...queueRef(), concurrency: 3, batchSize: 8, zzzzzz: 1 });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([
    { path: 'batchSize', message: 'unknown field; did you mean batchingMinSize?' },
    { path: 'zzzzzz', message: 'unknown field' },
  ]);
  expect((await post(t, 'getQueue', queueRef())).body.concurrency).toBe(1);
});

test('the flaky-test and webhook operations are strict too', async () => {
  const settings = await post(t, 'flaky-tests/updateSettings', { repo: queueRef().repo, autoQuarantin: false });
  expectProblem(settings, 400, 'invalid_request');
  expect(settings.body.errors).toEqual([{ path: 'autoQuarantin', message: 'unknown field; did you mean autoQuarantine?' }]);
  const hook = await post(t, 'webhooks/create', { url: 'https://hooks.example.com/x', events: ['*'], secret: 's' });
  expectProblem(hook, 400, 'invalid_request');
  expect(hook.body.errors.map((e: { path: string }) => e.path)).toEqual(['secret']);
});

test('submitPullRequest refuses a misspelt priority, names it and the field meant, and submits nothing', async () => {
  await post(t, 'createQueue', queueRef());
  const res = await post(t, 'submitPullRequest', { ...prRef(1), priorty: 'urgent' });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: 'priorty', message: 'unknown field; did you mean priority?' }]);
  expectProblem(await post(t, 'getSubmittedPullRequest', prRef(1)), 404, 'pull_request_not_found');
});

test('operations real clients call with extra fields still ignore them', async () => {
  expect((await post(t, 'createQueue', queueRef())).status).toBe(200);
  const extra = { clientVersion: '1.2.3', requestId: 'r-1' };
  expect((await post(t, 'submitPullRequest', prRef(1))).status).toBe(200);
  expect((await post(t, 'getSubmittedPullRequest', { ...prRef(1), ...extra })).status).toBe(200);
  expect((await post(t, 'getQueue', { ...queueRef(), ...extra })).status).toBe(200);
  expect((await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), ...extra })).status).toBe(200);
  expect((await post(t, 'cancelPullRequest', { ...prRef(1), ...extra })).status).toBe(200);
  expect((await post(t, 'deleteQueue', { ...queueRef(), ...extra })).body).toEqual({ deleted: true });
});

test('a body of 30,000 unknown fields is a prompt 400 listing the first 100', async () => {
  const body: Record<string, unknown> = queueRef();
  for (let i = 0; i < 30_000; i++) body[`concurrency${i}`] = i;
  const started = Date.now();
  const res = await post(t, 'createQueue', body);
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toHaveLength(100);
  expect(res.body.detail).toMatch(/^30000 problems in the request: concurrency0: unknown field; did you mean concurrency\?/);
  expect(Date.now() - started).toBeLessThan(5000);
});

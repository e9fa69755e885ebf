import { startRun } from './helpers/engine-steps.js';
import { expectProblem, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** createQueue, getQueue, updateQueue, deleteQueue over HTTP, with a real SQLite store. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Seed 2.3: every field of the queue record, with its type. */
function expectQueueRecordShape(record: Record<string, unknown>): void {
  const types: Record<string, string> = {
    state: 'string',
    branch: 'string',
    concurrency: 'number',
    testingTimeoutMinutes: 'number',
    mode: 'string',
    canOptimisticallyMerge: 'boolean',
    pendingFailureDepth: 'number',
    batch: 'boolean',
    batchingMaxWaitTimeMinutes: 'number',
    batchingMinSize: 'number',
    createPrsForTestingBranches: 'boolean',
    commentsEnabled: 'boolean',
    commandsEnabled: 'boolean',
    statusCheckEnabled: 'boolean',
    bisectionConcurrency: 'number',
    directMergeMode: 'string',
    optimizationMode: 'string',
    mergeMethod: 'string',
    flakeRetries: 'number',
    flakyTestRetries: 'number',
    skipRetryOnRealFailure: 'boolean',
    testResultsWaitSeconds: 'number',
    createdAt: 'string',
    updatedAt: 'string',
  };
  for (const [field, type] of Object.entries(types)) expect([field, typeof record[field]]).toEqual([field, type]);
  expect(Array.isArray(record.requiredStatuses)).toBe(true);
  expect(Array.isArray(record.enqueuedPullRequests)).toBe(true);
  expect(record.repo).toEqual({ host: expect.any(String), owner: expect.any(String), name: expect.any(String) });
  expect(record.createdAt).toMatch(ISO_MS);
  expect(record.updatedAt).toMatch(ISO_MS);
}

describe('createQueue', () => {
  test('creates a queue with the documented defaults and answers the queue record', async () => {
    const res = await post(t, 'createQueue', queueRef());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectQueueRecordShape(res.body);
    expect(res.body).toMatchObject({
      repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
      branch: 'main',
      state: 'running',
      mode: 'single',
      concurrency: 1,
      testingTimeoutMinutes: 300,
      canOptimisticallyMerge: false,
      pendingFailureDepth: 0,
      flakeRetries: 1,
      flakyTestRetries: 2,
      skipRetryOnRealFailure: true,
      testResultsWaitSeconds: 60,
      batch: false,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 4,
      bisectionConcurrency: 1,
      createPrsForTestingBranches: false,
      commentsEnabled: true,
      commandsEnabled: true,
      statusCheckEnabled: true,
      requiredStatuses: [],
      requiredStatusesSource: 'branch_protection',
      directMergeMode: 'off',
      optimizationMode: 'off',
      mergeMethod: 'squash',
      enqueuedPullRequests: [],
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
    });
    const { page, ...record } = (await post(t, 'getQueue', queueRef())).body;
    expect(record).toEqual(res.body);
    expect(page).toEqual({ total_rows: 0, total_pages: 0, page_index: 0, next_page_token: '', prev_page_token: '', last_page_token: '' });
    expect(t.notifier.calls).toEqual([res.body.id]);
  });

  test('takes settings as given, liberally: digit strings, any letter case, null as absent', async () => {
    const res = await post(t, 'createQueue', {
      ...queueRef(),
      mode: 'PARALLEL',
      concurrency: '8',
      mergeMethod: 'Rebase',
      directMergeMode: 'ALWAYS',
      optimizationMode: 'BISECTION_SKIP_REDUNDANT_TESTS',
      batch: true,
      batchingMinSize: 10,
      requiredStatuses: ['ci/build', 'ci/test'],
      commentsEnabled: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mode: 'parallel',
      concurrency: 8,
      // bisectionConcurrency follows concurrency at creation
      bisectionConcurrency: 8,
      mergeMethod: 'rebase',
      directMergeMode: 'always',
      optimizationMode: 'bisection_skip_redundant_tests',
      batch: true,
      batchingMinSize: 10,
      requiredStatuses: ['ci/build', 'ci/test'],
      requiredStatusesSource: 'queue',
      commentsEnabled: true,
    });
  });

  test('can start paused', async () => {
    expect((await post(t, 'createQueue', { ...queueRef(), state: 'PAUSED' })).body.state).toBe('paused');
  });

  test('409 queue_exists for a branch that has a queue; the queue is unchanged', async () => {
    await post(t, 'createQueue', { ...queueRef(), concurrency: 2 });
    const again = await post(t, 'createQueue', { ...queueRef(), concurrency: 5 });
    expectProblem(again, 409, 'queue_exists');
    expect(again.body.detail).toMatch(/^a merge queue for branch main of github\.com\/acme\/widgets already exists; submit to it as it is, or change its settings with updateQueue$/);
    expect((await post(t, 'getQueue', queueRef())).body.concurrency).toBe(2);
    // Repositories and branches are told apart: same branch in another repo, another branch here.
    expect((await post(t, 'createQueue', queueRef('main', { host: 'github.com', owner: 'acme', name: 'other' }))).status).toBe(200);
    expect((await post(t, 'createQueue', queueRef('release'))).status).toBe(200);
  });

  test.each([
    ['concurrency', 0],
    ['concurrency', 1001],
    ['testingTimeoutMinutes', 0],
    ['testingTimeoutMinutes', 10081],
    ['pendingFailureDepth', -1],
    ['pendingFailureDepth', 101],
    ['flakeRetries', 6],
    ['flakyTestRetries', -1],
    ['flakyTestRetries', 6],
    ['testResultsWaitSeconds', 3601],
    ['skipRetryOnRealFailure', 'yes'],
    ['batchingMaxWaitTimeMinutes', 1441],
    ['batchingMinSize', 0],
    ['batchingMinSize', 101],
    ['bisectionConcurrency', 1001],
    ['concurrency', 2.5],
    ['concurrency', '1e3'],
  ])('400 naming %s when it is %j, and no queue is created', async (field, value) => {
    const res = await post(t, 'createQueue', { ...queueRef(), [field]: value });
    expectProblem(res, 400, 'invalid_request');
    expect(res.body.errors).toEqual([{ path: field, message: expect.any(String) }]);
    expectProblem(await post(t, 'getQueue', queueRef()), 404, 'queue_not_found');
  });

  test('accepts the bounds themselves', async () => {
    const res = await post(t, 'createQueue', {
      ...queueRef(),
      concurrency: 1000,
      testingTimeoutMinutes: 10080,
      pendingFailureDepth: 100,
      flakeRetries: 0,
      flakyTestRetries: 5,
      testResultsWaitSeconds: 0,
      batchingMaxWaitTimeMinutes: 0,
      batchingMinSize: 100,
      bisectionConcurrency: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ concurrency: 1000, testingTimeoutMinutes: 10080, flakeRetries: 0, bisectionConcurrency: 1 });
  });
});

describe('getQueue', () => {
  test('404 queue_not_found for a branch without a queue names the repository and createQueue', async () => {
    const res = await post(t, 'getQueue', queueRef('nope'));
    expectProblem(res, 404, 'queue_not_found');
    expect(res.body.detail).toBe('no queue for branch nope of github.com/acme/widgets; create one with the createQueue operation (POST /v1/createQueue)');
  });

  test('repository names are case-insensitive', async () => {
    await post(t, 'createQueue', queueRef());
    const res = await post(t, 'getQueue', queueRef('main', { host: 'GitHub.com', owner: 'ACME', name: 'Widgets' }));
    expect(res.status).toBe(200);
  });

  describe('pages of enqueued pull requests', () => {
    beforeEach(async () => {
      await post(t, 'createQueue', queueRef());
      await post(t, 'createQueue', queueRef('develop'));
      for (const n of [11, 12, 13, 14, 15]) expect((await post(t, 'submitPullRequest', prRef(n))).status).toBe(200);
    });
    const prs = (body: { enqueuedPullRequests: { prNumber: number }[] }) => body.enqueuedPullRequests.map((p) => p.prNumber);

    test('without a page query: every enqueued PR (up to 1,000) and a page object', async () => {
      const res = await post(t, 'getQueue', queueRef());
      expect(res.status).toBe(200);
      expect(prs(res.body)).toEqual([11, 12, 13, 14, 15]);
      expect(res.body.page).toMatchObject({ total_rows: 5, total_pages: 1, page_index: 0, next_page_token: '', prev_page_token: '' });
    });

    test('walks the pages with the tokens, in queue order, and back', async () => {
      const first = (await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2 } })).body;
      expect(prs(first)).toEqual([11, 12]);
      expect(first.page).toMatchObject({ total_rows: 5, total_pages: 3, page_index: 0, prev_page_token: '' });
      const second = (await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2, page_token: first.page.next_page_token } })).body;
      expect(prs(second)).toEqual([13, 14]);
      const last = (await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2, page_token: second.page.last_page_token } })).body;
      expect(prs(last)).toEqual([15]);
      expect(last.page).toMatchObject({ page_index: 2, next_page_token: '' });
      const back = (await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2, page_token: last.page.prev_page_token } })).body;
      expect(prs(back)).toEqual([13, 14]);
      // The seed fields of the record are those of the whole queue on every page.
      const { enqueuedPullRequests: _a, page: _b, ...rest } = back;
      const { enqueuedPullRequests: _c, page: _d, ...whole } = (await post(t, 'getQueue', queueRef())).body;
      expect(rest).toEqual(whole);
    });

    test('a page read again is the same page, and any change of the queue shows in the next read at once', async () => {
      const page = { ...queueRef(), page_query: { page_size: 3 } };
      const first = await post(t, 'getQueue', page);
      expect((await post(t, 'getQueue', page)).text).toBe(first.text);
      expect((await post(t, 'submitPullRequest', prRef(16))).status).toBe(200);
      expect((await post(t, 'getQueue', queueRef())).body.page.total_rows).toBe(6);
      expect((await post(t, 'cancelPullRequest', prRef(12))).status).toBe(200);
      expect(prs((await post(t, 'getQueue', page)).body)).toEqual([11, 13, 14]);
      // The same clock second, another page size: its own page, not a kept one.
      expect(prs((await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 1 } })).body)).toEqual([11]);
    });

    test('400 naming the field for a page size out of bounds or of the wrong type, changing nothing', async () => {
      for (const page_size of [0, 1001, 'many', 2.5]) {
        const res = await post(t, 'getQueue', { ...queueRef(), page_query: { page_size } });
        expectProblem(res, 400, 'invalid_request');
        expect(JSON.stringify(res.body.errors)).toContain('page_query.page_size');
      }
      expectProblem(await post(t, 'getQueue', { ...queueRef(), page_query: 'all' }), 400, 'invalid_request');
      expect(prs((await post(t, 'getQueue', queueRef())).body)).toEqual([11, 12, 13, 14, 15]);
    });

    test('400 invalid_page_token for a made-up token, or one of another queue or page size', async () => {
      const first = (await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2 } })).body;
      const token = first.page.next_page_token;
      expectProblem(await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 2, page_token: 'bm9wZQ.bm9wZQ' } }), 400, 'invalid_page_token');
      expectProblem(await post(t, 'getQueue', { ...queueRef(), page_query: { page_size: 3, page_token: token } }), 400, 'invalid_page_token');
      expectProblem(await post(t, 'getQueue', { ...queueRef('develop'), page_query: { page_size: 2, page_token: token } }), 400, 'invalid_page_token');
    });
  });
});

describe('updateQueue', () => {
  beforeEach(async () => {
    await post(t, 'createQueue', { ...queueRef(), concurrency: 4, requiredStatuses: ['ci'] });
    t.notifier.calls.length = 0;
  });

  test('changes only the fields given and moves updatedAt', async () => {
    const { page: _page, ...before } = (await post(t, 'getQueue', queueRef())).body;
    t.clock.advance(60_000);
    const res = await post(t, 'updateQueue', { ...queueRef(), testingTimeoutMinutes: '90', canOptimisticallyMerge: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      testingTimeoutMinutes: 90,
      canOptimisticallyMerge: true,
      updatedAt: '2026-11-22T10:01:00.000Z',
    });
    expect((await post(t, 'getQueue', queueRef())).body).toEqual({ ...res.body, page: _page });
    expect(t.notifier.calls).toEqual([before.id]);
  });

  test('changing concurrency later leaves bisectionConcurrency alone', async () => {
    const res = await post(t, 'updateQueue', { ...queueRef(), concurrency: 9 });
    expect(res.body).toMatchObject({ concurrency: 9, bisectionConcurrency: 4 });
  });

  test('state paused and draining (any case) show in getQueue; running again', async () => {
    for (const [given, shown] of [
      ['PAUSED', 'paused'],
      ['Draining', 'draining'],
      ['running', 'running'],
    ]) {
      expect((await post(t, 'updateQueue', { ...queueRef(), state: given })).status).toBe(200);
      expect((await post(t, 'getQueue', queueRef())).body.state).toBe(shown);
    }
  });

  test('switching_modes cannot be set', async () => {
    const res = await post(t, 'updateQueue', { ...queueRef(), state: 'SWITCHING_MODES' });
    expectProblem(res, 400, 'invalid_request');
    expect(res.body.errors).toEqual([{ path: 'state', message: expect.any(String) }]);
    expect((await post(t, 'getQueue', queueRef())).body.state).toBe('running');
  });

  test('requiredStatuses: a new list, then null returns to branch protection; omitted keeps it', async () => {
    let res = await post(t, 'updateQueue', { ...queueRef(), requiredStatuses: ['lint', 'test'] });
    expect(res.body).toMatchObject({ requiredStatuses: ['lint', 'test'], requiredStatusesSource: 'queue' });
    res = await post(t, 'updateQueue', { ...queueRef(), batch: true });
    expect(res.body).toMatchObject({ requiredStatuses: ['lint', 'test'], batch: true });
    res = await post(t, 'updateQueue', { ...queueRef(), requiredStatuses: null });
    expect(res.body).toMatchObject({ requiredStatuses: [], requiredStatusesSource: 'branch_protection' });
  });

  test('out-of-bounds values are refused with the field named, and nothing changes', async () => {
    const before = (await post(t, 'getQueue', queueRef())).body;
    const res = await post(t, 'updateQueue', { ...queueRef(), concurrency: 1001, flakeRetries: -1, mode: 'fast' });
    expectProblem(res, 400, 'invalid_request');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['concurrency', 'flakeRetries', 'mode']);
    expect((await post(t, 'getQueue', queueRef())).body).toEqual(before);
    expect(t.notifier.calls).toEqual([]);
  });

  test('a mode change with no run in flight applies at once', async () => {
    const res = await post(t, 'updateQueue', { ...queueRef(), mode: 'parallel' });
    expect(res.body).toMatchObject({ mode: 'parallel', state: 'running' });
  });

  test('a mode change with a run in flight goes through switching_modes', async () => {
    await post(t, 'submitPullRequest', prRef(1));
    await startRun(t, 'main', [1], { runId: 'run-1' });
    const res = await post(t, 'updateQueue', { ...queueRef(), mode: 'parallel' });
    expect(res.body).toMatchObject({ mode: 'single', state: 'switching_modes' });
  });

  test('404 for a queue that does not exist', async () => {
    expectProblem(await post(t, 'updateQueue', { ...queueRef('nope'), concurrency: 2 }), 404, 'queue_not_found');
  });
});

describe('deleteQueue', () => {
  test('refuses while PRs are active, then deletes once they are cancelled; deleting again is a no-op', async () => {
    await post(t, 'createQueue', queueRef());
    await post(t, 'submitPullRequest', prRef(1));
    await post(t, 'submitPullRequest', prRef(2));

    const refused = await post(t, 'deleteQueue', queueRef());
    expectProblem(refused, 409, 'queue_not_empty');
    expect(refused.body.detail).toBe(
      '2 pull requests are still in the queue for main; cancel them first (cancelPullRequest), or drain the queue and wait for it to empty',
    );
    expect((await post(t, 'getQueue', queueRef())).status).toBe(200);

    await post(t, 'cancelPullRequest', prRef(1));
    expect((await post(t, 'deleteQueue', queueRef())).body.detail).toMatch(/^1 pull request is still in the queue for main; cancel it first/);
    await post(t, 'cancelPullRequest', prRef(2));

    const deleted = await post(t, 'deleteQueue', queueRef());
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ deleted: true });
    expectProblem(await post(t, 'getQueue', queueRef()), 404, 'queue_not_found');

    const again = await post(t, 'deleteQueue', queueRef());
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ deleted: false });
  });

  test('a deleted queue can be created again, empty', async () => {
    await post(t, 'createQueue', queueRef());
    await post(t, 'deleteQueue', queueRef());
    const res = await post(t, 'createQueue', queueRef());
    expect(res.status).toBe(200);
    expect(res.body.enqueuedPullRequests).toEqual([]);
  });
});

import { makeReady, mergeAndArchive, startRun } from './helpers/engine-steps.js';
import { expectProblem, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** getMergeQueueTestingDetails: live runs from the queue document, ended ones from the archive. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
  await post(t, 'createQueue', queueRef());
  for (const n of [1, 2, 3]) await post(t, 'submitPullRequest', prRef(n));
  await makeReady(t, 'main', [1, 2, 3]);
  await startRun(t, 'main', [1], { runId: 'run-a' });
  t.clock.advance(1000);
  await startRun(t, 'main', [1, 2], { runId: 'run-b', status: 'creating' });
});
afterEach(async () => {
  await t.close();
});

const ids = (res: { body: { testRuns: { id: string }[] } }) => res.body.testRuns.map((r) => r.id);

test('without a filter: the runs in flight, in the TestRun shape', async () => {
  const res = await post(t, 'getMergeQueueTestingDetails', queueRef());
  expect(res.status).toBe(200);
  expect(ids(res)).toEqual(['run-b', 'run-a']);
  const [b, a] = res.body.testRuns;
  expect(a).toEqual({
    id: 'run-a',
    kind: 'main',
    status: 'pending',
    testBranch: 'mergeq/main/run-a',
    testBranchSha: 'tb-run-a',
    baseSha: 'base-sha',
    createdAt: '2026-11-22T10:00:00.000Z',
    finishedAt: null,
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'queue',
    statusChecks: [{ context: 'ci', state: 'pending', url: 'https://ci.example/1' }],
    testedPullRequests: [{ prNumber: 1, prSha: '', prTitle: '' }],
    dependentPrs: [],
    failedTests: null,
    // No verdict names a run in flight.
    verdicts: [],
  });
  // A run still being created is shown as pending; the PRs ahead it builds on are its dependents.
  expect(b).toMatchObject({
    status: 'pending',
    testBranchSha: null,
    testedPullRequests: [
      { prNumber: 1, prSha: '', prTitle: '' },
      { prNumber: 2, prSha: '', prTitle: '' },
    ],
    dependentPrs: [1],
  });
});

test('testRunId: that run, live or archived; an unknown id matches nothing', async () => {
  expect(ids(await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), testRunId: 'run-a' }))).toEqual(['run-a']);
  expect(ids(await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), testRunId: 'nope' }))).toEqual([]);

  await mergeAndArchive(t, 'main', 1);
  const archived = await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), testRunId: 'run-a' });
  expect(archived.body.testRuns).toEqual([expect.objectContaining({ id: 'run-a', status: 'passed', finishedAt: expect.any(String) })]);
  // An archived run is not in flight any more.
  expect(ids(await post(t, 'getMergeQueueTestingDetails', queueRef()))).toEqual([]);
});

test('pr: the runs that include that PR', async () => {
  expect(ids(await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), pr: { number: 1 } }))).toEqual(['run-b', 'run-a']);
  expect(ids(await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), pr: { number: '2' } }))).toEqual(['run-b']);
  expect(ids(await post(t, 'getMergeQueueTestingDetails', { ...queueRef(), pr: { number: 3 } }))).toEqual([]);
});

test('404 for a queue that does not exist', async () => {
  expectProblem(await post(t, 'getMergeQueueTestingDetails', queueRef('nope')), 404, 'queue_not_found');
});

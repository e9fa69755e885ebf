import { VirtualTime } from '../../src/engine/virtual-time.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { makeReady, mergeAndArchive, setState, startRun } from './helpers/engine-steps.js';
import { ACME_REPO, expectProblem, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** submitPullRequest, cancelPullRequest, restartTestsOnPullRequest, getSubmittedPullRequest. */

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Seed 2.4 fields plus state/position, and the submitted-PR record fields of api.md, with their types. */
function expectSubmittedRecordShape(r: Record<string, unknown>): void {
  const types: Record<string, string> = {
    id: 'string',
    prNumber: 'number',
    prTitle: 'string',
    prSha: 'string',
    prBaseBranch: 'string',
    prAuthor: 'string',
    state: 'string',
    stateChangedAt: 'string',
    priorityValue: 'number',
    priorityName: 'string',
    skipTheLine: 'boolean',
    noBatch: 'boolean',
    isCurrentlySubmittedToQueue: 'boolean',
    readiness: 'object',
    history: 'object',
  };
  for (const [field, type] of Object.entries(types)) expect([field, typeof r[field]]).toEqual([field, type]);
  expect(r.stateChangedAt).toMatch(ISO_MS);
  expect(r.position === null || typeof r.position === 'number').toBe(true);
  expect(r.usedDefaultPriorityName === null || typeof r.usedDefaultPriorityName === 'string').toBe(true);
  expect(r.reason === null || typeof r.reason === 'object').toBe(true);
  expect(r.testRunId === null || typeof r.testRunId === 'string').toBe(true);
  expect(r.readiness).toEqual(
    expect.objectContaining({
      hasImpactedTargets: expect.any(Boolean),
      requiresImpactedTargets: expect.any(Boolean),
      doesBaseBranchMatch: expect.any(Boolean),
      gitHubMergeability: expect.stringMatching(/^(MERGEABLE|NOT_MERGEABLE|IN_PROGRESS|UNSPECIFIED)$/),
    }),
  );
  for (const h of r.history as Record<string, unknown>[]) {
    expect(h).toEqual({
      state: expect.any(String),
      at: expect.stringMatching(ISO_MS),
      reason: { code: expect.any(String), message: expect.any(String) },
      verdict: h.verdict === null ? null : expect.objectContaining({ code: expect.any(String), message: expect.any(String), evidence: expect.any(Object) }),
    });
  }
  expect(r.verdict).toEqual((r.history as { verdict: unknown }[]).findLast((h) => h.verdict !== null)?.verdict ?? null);
}

describe('without a git host', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
    await post(t, 'createQueue', queueRef());
    t.notifier.calls.length = 0;
  });
  afterEach(async () => {
    await t.close();
  });

  describe('submitPullRequest', () => {
    test('accepts the PR as NOT_READY, mergeability UNSPECIFIED, saying no git host is configured', async () => {
      const res = await post(t, 'submitPullRequest', prRef(17));
      expect(res.status).toBe(200);
      expectSubmittedRecordShape(res.body);
      expect(res.body).toMatchObject({
        prNumber: 17,
        prTitle: '',
        prSha: '',
        prAuthor: '',
        state: 'NOT_READY',
        position: null,
        priorityValue: 100,
        priorityName: 'medium',
        usedDefaultPriorityName: 'medium',
        skipTheLine: false,
        noBatch: false,
        isCurrentlySubmittedToQueue: true,
        readiness: { gitHubMergeability: 'UNSPECIFIED', note: 'no git host is configured', requiresImpactedTargets: false },
        reason: { code: 'submitted', message: expect.any(String) },
        testRunId: null,
        history: [{ state: 'NOT_READY', at: '2026-11-22T10:00:00.000Z', reason: { code: 'submitted', message: expect.any(String) } }],
      });
      const queue = (await post(t, 'getQueue', queueRef())).body;
      expect(queue.enqueuedPullRequests).toEqual([
        {
          id: res.body.id,
          prNumber: 17,
          prTitle: '',
          prSha: '',
          prBaseBranch: '',
          prAuthor: '',
          state: 'NOT_READY',
          stateChangedAt: '2026-11-22T10:00:00.000Z',
          position: null,
          priorityValue: 100,
          priorityName: 'medium',
          usedDefaultPriorityName: 'medium',
          skipTheLine: false,
          noBatch: false,
          estimatedMergeAt: null,
          estimatedMergeRange: null,
          estimateReason: { code: 'not_ready', message: 'not ready: no estimate until it is' },
          // Every entry says why it is in its state, as getSubmittedPullRequest does (the web page's Reason column).
          reason: { code: 'submitted', message: 'submitted to the queue' },
          readinessNote: 'no git host is configured',
          mergeHold: null,
          // Nothing removed or restarted it yet.
          verdict: null,
          stack: null,
        },
      ]);
      expect(t.notifier.calls).toEqual([queue.id]);
    });

    test.each([
      ['urgent', 0, 'urgent', true],
      ['HIGH', 10, 'high', false],
      ['low', 200, 'low', false],
      [0, 0, 'urgent', true],
      [42, 42, '42', false],
      ['255', 255, '255', false],
    ])('priority %j → value %i, name %s, skipTheLine %s', async (priority, value, name, skip) => {
      const res = await post(t, 'submitPullRequest', { ...prRef(1), priority });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ priorityValue: value, priorityName: name, usedDefaultPriorityName: null, skipTheLine: skip });
    });

    test('a digit string is a PR number too; noBatch is kept', async () => {
      const res = await post(t, 'submitPullRequest', { ...queueRef(), pr: { number: '23' }, noBatch: true });
      expect(res.body).toMatchObject({ prNumber: 23, noBatch: true });
    });

    test('re-submitting an active PR is idempotent: same entry, new priority and noBatch applied', async () => {
      const first = await post(t, 'submitPullRequest', prRef(5));
      t.clock.advance(1000);
      const again = await post(t, 'submitPullRequest', prRef(5));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);

      const raised = await post(t, 'submitPullRequest', { ...prRef(5), priority: 'high', noBatch: true });
      expect(raised.body).toMatchObject({ id: first.body.id, priorityValue: 10, priorityName: 'high', usedDefaultPriorityName: null, noBatch: true });
      expect(raised.body.history).toEqual(first.body.history);
      const queue = (await post(t, 'getQueue', queueRef())).body;
      expect(queue.enqueuedPullRequests).toHaveLength(1);
      // The no-op re-submit wrote nothing, so only two changes were notified.
      expect(t.notifier.calls).toHaveLength(2);
    });

    test('404 queue_not_found when the branch has no queue', async () => {
      expectProblem(await post(t, 'submitPullRequest', prRef(1, 'develop')), 404, 'queue_not_found');
    });

    test('a draining queue refuses new PRs (409 queue_not_accepting); a paused one accepts them', async () => {
      await post(t, 'updateQueue', { ...queueRef(), state: 'draining' });
      expectProblem(await post(t, 'submitPullRequest', prRef(1)), 409, 'queue_not_accepting');
      expect((await post(t, 'getQueue', queueRef())).body.enqueuedPullRequests).toEqual([]);

      await post(t, 'updateQueue', { ...queueRef(), state: 'paused' });
      expect((await post(t, 'submitPullRequest', prRef(1))).body.state).toBe('NOT_READY');
    });

    test('in a parallel queue the PR requires impacted targets', async () => {
      await post(t, 'updateQueue', { ...queueRef(), mode: 'parallel' });
      const res = await post(t, 'submitPullRequest', prRef(3));
      expect(res.body.readiness).toMatchObject({ requiresImpactedTargets: true, hasImpactedTargets: false });
    });
  });

  describe('enqueuedPullRequests and position', () => {
    test('positioned PRs first in queue order, then the not-ready ones by submission', async () => {
      for (const n of [1, 2, 3, 4]) await post(t, 'submitPullRequest', prRef(n));
      await makeReady(t, 'main', [3, 1]);
      const queue = (await post(t, 'getQueue', queueRef())).body;
      expect(queue.enqueuedPullRequests.map((p: { prNumber: number; position: number | null; state: string }) => [p.prNumber, p.position, p.state])).toEqual([
        [3, 1, 'PENDING'],
        [1, 2, 'PENDING'],
        [2, null, 'NOT_READY'],
        [4, null, 'NOT_READY'],
      ]);
      expect((await post(t, 'getSubmittedPullRequest', prRef(1))).body.position).toBe(2);
    });
  });

  describe('cancelPullRequest', () => {
    test('cancels with reason cancelled_by_user; cancelling again is idempotent', async () => {
      const submitted = await post(t, 'submitPullRequest', prRef(8));
      t.clock.advance(5000);
      const res = await post(t, 'cancelPullRequest', prRef(8));
      expect(res.status).toBe(200);
      expectSubmittedRecordShape(res.body);
      expect(res.body).toMatchObject({
        id: submitted.body.id,
        state: 'CANCELLED',
        stateChangedAt: '2026-11-22T10:00:05.000Z',
        isCurrentlySubmittedToQueue: false,
        position: null,
        reason: { code: 'cancelled_by_user' },
        verdict: { code: 'manual', evidence: { cause: 'cancelled_by_user' } },
      });
      expect(res.body.history.map((h: { state: string }) => h.state)).toEqual(['NOT_READY', 'CANCELLED']);
      expect((await post(t, 'getQueue', queueRef())).body.enqueuedPullRequests).toEqual([]);

      const again = await post(t, 'cancelPullRequest', prRef(8));
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      expect((await post(t, 'getSubmittedPullRequest', prRef(8))).body).toEqual(res.body);
    });

    test('404 pull_request_not_found for a PR never submitted', async () => {
      expectProblem(await post(t, 'cancelPullRequest', prRef(99)), 404, 'pull_request_not_found');
    });

    test('409 invalid_state for a merged PR, which stays merged', async () => {
      await post(t, 'submitPullRequest', prRef(4));
      await makeReady(t, 'main', [4]);
      await startRun(t, 'main', [4], { runId: 'run-4' });
      await mergeAndArchive(t, 'main', 4);
      expectProblem(await post(t, 'cancelPullRequest', prRef(4)), 409, 'invalid_state');
      const status = await post(t, 'getSubmittedPullRequest', prRef(4));
      expect(status.body).toMatchObject({ state: 'MERGED', isCurrentlySubmittedToQueue: false, position: null });
    });

    test('a PR submitted again after it was cancelled is a new entry', async () => {
      const first = await post(t, 'submitPullRequest', prRef(6));
      await post(t, 'cancelPullRequest', prRef(6));
      const second = await post(t, 'submitPullRequest', prRef(6));
      expect(second.body.id).not.toBe(first.body.id);
      expect(second.body).toMatchObject({ state: 'NOT_READY', isCurrentlySubmittedToQueue: true });
      expect((await post(t, 'getSubmittedPullRequest', prRef(6))).body.id).toBe(second.body.id);
    });

    test('cancelling a testing PR in a run takes it out of its unit', async () => {
      await post(t, 'submitPullRequest', prRef(1));
      await post(t, 'submitPullRequest', prRef(2));
      await makeReady(t, 'main', [1, 2]);
      await startRun(t, 'main', [1], { runId: 'run-1' });
      const res = await post(t, 'cancelPullRequest', prRef(1));
      expect(res.body).toMatchObject({ state: 'CANCELLED', testRunId: null });
      expect((await post(t, 'getSubmittedPullRequest', prRef(2))).body.position).toBe(1);
    });
  });

  describe('restartTestsOnPullRequest', () => {
    beforeEach(async () => {
      await post(t, 'submitPullRequest', prRef(1));
      await post(t, 'submitPullRequest', prRef(2));
    });

    test('409 invalid_state for NOT_READY and PENDING PRs', async () => {
      expectProblem(await post(t, 'restartTestsOnPullRequest', prRef(1)), 409, 'invalid_state');
      await makeReady(t, 'main', [1]);
      expectProblem(await post(t, 'restartTestsOnPullRequest', prRef(1)), 409, 'invalid_state');
    });

    test('a TESTING PR goes back to PENDING at its position, its run is cancelled, nothing else moves', async () => {
      await makeReady(t, 'main', [1, 2]);
      await startRun(t, 'main', [1], { runId: 'run-1' });
      await startRun(t, 'main', [1, 2], { runId: 'run-2' });
      t.notifier.calls.length = 0;
      t.clock.advance(1000);

      const res = await post(t, 'restartTestsOnPullRequest', prRef(1));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ state: 'PENDING', position: 1, testRunId: null, reason: { code: 'restarted_by_user' } });
      expect((await post(t, 'getSubmittedPullRequest', prRef(2))).body).toMatchObject({ state: 'TESTING', testRunId: 'run-2', position: 2 });
      const runs = (await post(t, 'getMergeQueueTestingDetails', queueRef())).body.testRuns;
      expect(runs.map((r: { id: string }) => r.id)).toEqual(['run-2']);
      expect(t.notifier.calls).toHaveLength(1);
    });

    // A suspect stays PENDING_FAILURE while its failed run is rerun (queue-semantics, rule 6).
    test.each([
      ['TESTS_PASSED', 'PENDING'],
      ['PENDING_FAILURE', 'PENDING_FAILURE'],
    ] as const)('a %s PR can be restarted (then %s)', async (state, after) => {
      await makeReady(t, 'main', [1]);
      await startRun(t, 'main', [1], { runId: 'run-1' });
      await setState(t, 'main', 1, state);
      const res = await post(t, 'restartTestsOnPullRequest', prRef(1));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ state: after, reason: { code: 'restarted_by_user' } });
      expect(res.body.history.at(-1)).toMatchObject({ state: after, reason: { code: 'restarted_by_user' } });
    });

    test('409 for a cancelled PR, 404 for one never submitted', async () => {
      await post(t, 'cancelPullRequest', prRef(2));
      expectProblem(await post(t, 'restartTestsOnPullRequest', prRef(2)), 409, 'invalid_state');
      expectProblem(await post(t, 'restartTestsOnPullRequest', prRef(3)), 404, 'pull_request_not_found');
    });
  });

  describe('getSubmittedPullRequest', () => {
    test('404 for a PR never submitted, 404 queue_not_found for a missing queue', async () => {
      expectProblem(await post(t, 'getSubmittedPullRequest', prRef(1)), 404, 'pull_request_not_found');
      expectProblem(await post(t, 'getSubmittedPullRequest', prRef(1, 'nope')), 404, 'queue_not_found');
    });

    test('the latest entry of a PR that was archived by the engine', async () => {
      await post(t, 'submitPullRequest', prRef(1));
      await makeReady(t, 'main', [1]);
      await startRun(t, 'main', [1], { runId: 'run-1' });
      await mergeAndArchive(t, 'main', 1);
      const res = await post(t, 'getSubmittedPullRequest', prRef(1));
      expectSubmittedRecordShape(res.body);
      expect(res.body).toMatchObject({ state: 'MERGED', isCurrentlySubmittedToQueue: false, position: null, reason: { code: 'merged' } });
      expect(res.body.history.map((h: { state: string }) => h.state)).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'MERGED']);
    });
  });
});

describe('with a git host (the sandbox)', () => {
  let t: TestApp;
  let host: SandboxGitHost;
  beforeEach(async () => {
    const time = new VirtualTime();
    host = new SandboxGitHost({ clock: time, scheduler: time });
    t = await createTestApp({ gitHost: host });
    await post(t, 'createQueue', queueRef());
  });
  afterEach(async () => {
    await t.close();
  });

  test('fills title, head SHA, author, base and readiness from the host', async () => {
    const pr = host.openPullRequest(ACME_REPO, { title: 'Add widgets', author: 'ada' });
    const res = await post(t, 'submitPullRequest', prRef(pr.number));
    expect(res.body).toMatchObject({
      prTitle: 'Add widgets',
      prSha: pr.headSha,
      prAuthor: 'ada',
      prBaseBranch: 'main',
      state: 'NOT_READY',
      readiness: { doesBaseBranchMatch: true, gitHubMergeability: 'MERGEABLE', isOpen: true, isDraft: false, note: null },
    });
  });

  test('a PR based on another branch is accepted but its base does not match', async () => {
    const pr = host.openPullRequest(ACME_REPO, { baseBranch: 'develop' });
    const res = await post(t, 'submitPullRequest', prRef(pr.number));
    expect(res.body).toMatchObject({ prBaseBranch: 'develop', readiness: { doesBaseBranchMatch: false } });
  });

  test('a PR the host does not know, or a host that fails, leaves the PR NOT_READY with the reason', async () => {
    const unknown = await post(t, 'submitPullRequest', prRef(404));
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ state: 'NOT_READY', prSha: '', readiness: { gitHubMergeability: 'UNSPECIFIED', note: expect.stringContaining('#404') } });

    const pr = host.openPullRequest(ACME_REPO);
    host.failNext('getPullRequest');
    const failed = await post(t, 'submitPullRequest', prRef(pr.number));
    expect(failed.status).toBe(200);
    expect(failed.body.readiness).toMatchObject({ gitHubMergeability: 'UNSPECIFIED', note: expect.stringContaining('injected outage') });
  });

  test('targets set before submitting count for that head SHA in a parallel queue', async () => {
    await post(t, 'updateQueue', { ...queueRef(), mode: 'parallel' });
    const pr = host.openPullRequest(ACME_REPO);
    await post(t, 'setImpactedTargets', { ...queueRef(), pr: { number: pr.number, sha: pr.headSha }, impactedTargets: ['//a'] });
    const res = await post(t, 'submitPullRequest', prRef(pr.number));
    expect(res.body.readiness).toMatchObject({ requiresImpactedTargets: true, hasImpactedTargets: true });
  });
});

import { expectProblem, post, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** The queue settings enqueueLabel and autoEnqueue (docs/queue-labels.md) over HTTP. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

test('a new queue has neither: no label enqueues, auto-enqueue is off', async () => {
  const res = await post(t, 'createQueue', queueRef());
  expect(res.body).toMatchObject({ enqueueLabel: null, autoEnqueue: { enabled: false, authors: null } });
});

test('createQueue and updateQueue take them; getQueue answers them; authors left out means every author', async () => {
  const created = await post(t, 'createQueue', { ...queueRef(), enqueueLabel: 'merge', autoEnqueue: { enabled: true, authors: ['dependabot[bot]', 'renovate[bot]'] } });
  expect(created.status).toBe(200);
  expect(created.body).toMatchObject({ enqueueLabel: 'merge', autoEnqueue: { enabled: true, authors: ['dependabot[bot]', 'renovate[bot]'] } });

  const updated = await post(t, 'updateQueue', { ...queueRef(), enqueueLabel: null, autoEnqueue: { enabled: true } });
  expect(updated.body).toMatchObject({ enqueueLabel: null, autoEnqueue: { enabled: true, authors: null } });
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject({ enqueueLabel: null, autoEnqueue: { enabled: true, authors: null } });

  // Left out of an update (or autoEnqueue null, as for the other settings), they stay as they are.
  await post(t, 'updateQueue', { ...queueRef(), enqueueLabel: 'ship it', autoEnqueue: null, concurrency: 2 });
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject({ enqueueLabel: 'ship it', autoEnqueue: { enabled: true, authors: null } });
});

test.each([
  [{ autoEnqueue: { enabeld: true } }, [{ path: 'autoEnqueue.enabled', message: 'Required' }, { path: 'autoEnqueue.enabeld', message: 'unknown field; did you mean enabled?' }]],
  [{ autoEnqueue: true }, [{ path: 'autoEnqueue', message: 'expected an object {enabled, authors}' }]],
  [{ autoEnqueue: { enabled: true, authors: 'renovate[bot]' } }, [{ path: 'autoEnqueue.authors', message: expect.any(String) }]],
  [{ autoEnqueue: { enabled: true, authors: [''] } }, [{ path: 'autoEnqueue.authors.0', message: 'must not be empty' }]],
  [{ enqueueLabel: '' }, [{ path: 'enqueueLabel', message: 'must not be empty' }]],
  [{ enqueueLabel: 'x'.repeat(51) }, [{ path: 'enqueueLabel', message: 'must be at most 50 characters' }]],
  [{ enqueueLabel: ['merge'] }, [{ path: 'enqueueLabel', message: 'expected a string' }]],
])('%j is a 400 naming the field, and changes nothing', async (settings, errors) => {
  await post(t, 'createQueue', queueRef());
  const res = await post(t, 'updateQueue', { ...queueRef(), ...settings });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual(errors);
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject({ enqueueLabel: null, autoEnqueue: { enabled: false, authors: null } });
  expectProblem(await post(t, 'createQueue', { ...queueRef('other'), ...settings }), 400, 'invalid_request');
});

test('a queue stored before these settings existed reads as both off', async () => {
  const created = await post(t, 'createQueue', queueRef());
  const stored = (await t.store.queues.getQueueById(created.body.id))!;
  const { enqueueLabel: _label, autoEnqueue: _auto, ...older } = stored.settings;
  expect(await t.store.queues.commitQueue({ ...stored, settings: older as typeof stored.settings, version: stored.version + 1 }, stored.version)).toBe(true);
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject({ enqueueLabel: null, autoEnqueue: { enabled: false, authors: null } });
});

import { expectProblem, post, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** The queue settings restartBudgets, stormRuns, stormMinutes and stormPause (docs/queue-rules.md) over HTTP. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const DEFAULTS = { restartBudgets: { bystander: 3, infrastructure: 2 }, stormRuns: 10, stormMinutes: 30, stormPause: false, storm: null };

test('a new queue has the defaults and no storm; createQueue and updateQueue take them; getQueue answers them', async () => {
  expect((await post(t, 'createQueue', queueRef())).body).toMatchObject(DEFAULTS);
  const updated = await post(t, 'updateQueue', { ...queueRef(), restartBudgets: { bystander: 5, infrastructure: '0' }, stormRuns: 20, stormMinutes: 60, stormPause: true });
  expect(updated.status).toBe(200);
  const wanted = { restartBudgets: { bystander: 5, infrastructure: 0 }, stormRuns: 20, stormMinutes: 60, stormPause: true, storm: null };
  expect(updated.body).toMatchObject(wanted);
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject(wanted);
});

test.each([
  [{ restartBudgets: { bystander: 101, infrastructure: 2 } }, [{ path: 'restartBudgets.bystander', message: 'must be at most 100' }]],
  [{ restartBudgets: { bystander: 3 } }, [{ path: 'restartBudgets.infrastructure', message: 'Required' }]],
  [{ restartBudgets: 3 }, [{ path: 'restartBudgets', message: 'expected an object {bystander, infrastructure}' }]],
  [{ stormRuns: 1 }, [{ path: 'stormRuns', message: 'must be at least 2' }]],
  [{ stormMinutes: 1441 }, [{ path: 'stormMinutes', message: 'must be at most 1440' }]],
  [{ stormPause: 'yes' }, [{ path: 'stormPause', message: expect.any(String) }]],
])('%j is a 400 naming the field, and changes nothing', async (settings, errors) => {
  await post(t, 'createQueue', queueRef());
  const res = await post(t, 'updateQueue', { ...queueRef(), ...settings });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual(errors);
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject(DEFAULTS);
});

test('a queue stored before these settings existed reads as the defaults', async () => {
  const created = await post(t, 'createQueue', queueRef());
  const stored = (await t.store.queues.getQueueById(created.body.id))!;
  const { restartBudgets: _b, stormRuns: _r, stormMinutes: _m, stormPause: _p, ...older } = stored.settings;
  expect(await t.store.queues.commitQueue({ ...stored, settings: older as typeof stored.settings, version: stored.version + 1 }, stored.version)).toBe(true);
  expect((await post(t, 'getQueue', queueRef())).body).toMatchObject(DEFAULTS);
});

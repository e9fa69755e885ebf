import { VirtualTime } from '../../src/engine/virtual-time.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';
import { ACME_REPO, expectProblem, post, prRef, queueRef } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** setImpactedTargets: lists and ALL, keyed by head SHA, up to the 20 MiB body limit. */

const KEY = 'github.com/acme/widgets';
let t: TestApp;
let host: SandboxGitHost;

beforeEach(async () => {
  const time = new VirtualTime();
  host = new SandboxGitHost({ clock: time, scheduler: time });
  t = await createTestApp({ gitHost: host });
  await post(t, 'createQueue', { ...queueRef(), mode: 'parallel' });
  t.notifier.calls.length = 0;
});
afterEach(async () => {
  await t.close();
});

const targetsBody = (number: number, sha: string, impactedTargets: unknown) => ({ ...queueRef(), pr: { number, sha }, impactedTargets });

test('stores a list for that head SHA and answers its description', async () => {
  const res = await post(t, 'setImpactedTargets', targetsBody(7, 'abc123', ['//a:lib', '//b:test']));
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ prNumber: 7, prSha: 'abc123', impactedTargets: { all: false, count: 2 } });
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'abc123')).toEqual({ all: false, targets: ['//a:lib', '//b:test'] });
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'other-sha')).toBeNull();
});

test('a replaced list replaces the stored one, and the engine is told to drop its copy', async () => {
  await post(t, 'setImpactedTargets', targetsBody(7, 'abc123', ['//old']));
  await post(t, 'setImpactedTargets', targetsBody(7, 'abc123', ['//new', '//newer']));
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'abc123')).toEqual({ all: false, targets: ['//new', '//newer'] });
  expect(t.notifier.forgotten).toEqual([`${KEY}#7@abc123`, `${KEY}#7@abc123`]);
});

test.each(['ALL', 'all', 'IMPACTS_ALL', 'impacts_all', 'Impacts_All'])('%j marks every target', async (spelling) => {
  const res = await post(t, 'setImpactedTargets', targetsBody(7, 'abc123', spelling));
  expect(res.body.impactedTargets).toEqual({ all: true, count: 0 });
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'abc123')).toEqual({ all: true });
});

test('an empty list is a list (impacts nothing)', async () => {
  const res = await post(t, 'setImpactedTargets', targetsBody(7, 'abc123', []));
  expect(res.body.impactedTargets).toEqual({ all: false, count: 0 });
});

test('needs the queue to exist, but not the PR to be submitted', async () => {
  expectProblem(await post(t, 'setImpactedTargets', { ...targetsBody(7, 'abc', ['x']), targetBranch: 'nope' }), 404, 'queue_not_found');
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'abc')).toBeNull();
});

test('the active entry at that head becomes hasImpactedTargets; a list for an older head does not count', async () => {
  const queueId = (await post(t, 'getQueue', queueRef())).body.id;
  const pr = host.openPullRequest(ACME_REPO);
  const submitted = await post(t, 'submitPullRequest', prRef(pr.number));
  expect(submitted.body.readiness.hasImpactedTargets).toBe(false);
  t.notifier.calls.length = 0;

  await post(t, 'setImpactedTargets', targetsBody(pr.number, 'an-older-sha', ['//x']));
  expect((await post(t, 'getSubmittedPullRequest', prRef(pr.number))).body.readiness.hasImpactedTargets).toBe(false);
  expect(t.notifier.calls).toEqual([]);

  await post(t, 'setImpactedTargets', targetsBody(pr.number, pr.headSha, ['//x']));
  expect((await post(t, 'getSubmittedPullRequest', prRef(pr.number))).body.readiness.hasImpactedTargets).toBe(true);
  expect(t.notifier.calls).toEqual([queueId]);
});

test('a bad element is named by its index; nothing is stored', async () => {
  const res = await post(t, 'setImpactedTargets', targetsBody(7, 'abc', ['ok', 3, 'ok', null]));
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([
    { path: 'impactedTargets.1', message: expect.any(String) },
    { path: 'impactedTargets.3', message: expect.any(String) },
  ]);
  expect(await t.store.targets.getImpactedTargets(KEY, 7, 'abc')).toBeNull();
});

test('a list of about 700,000 names (close to 20 MiB) is accepted and stored whole', async () => {
  const names = Array.from({ length: 700_000 }, (_, i) => `//pkg/m${(i % 997).toString(36)}:target_${i.toString(36)}`);
  const body = targetsBody(7, 'big-sha', names);
  const bytes = Buffer.byteLength(JSON.stringify(body));
  expect(bytes).toBeGreaterThan(15 * 1024 * 1024);
  expect(bytes).toBeLessThan(20 * 1024 * 1024);

  const res = await post(t, 'setImpactedTargets', body);
  expect(res.status).toBe(200);
  expect(res.body.impactedTargets).toEqual({ all: false, count: 700_000 });

  const stored = await t.store.targets.getImpactedTargets(KEY, 7, 'big-sha');
  // Compared as one string: jest's deep equality over 700,000 elements takes seconds.
  expect(stored?.all).toBe(false);
  const storedNames = stored && !stored.all ? stored.targets : [];
  expect(storedNames.length).toBe(names.length);
  expect(storedNames.join('\n') === names.join('\n')).toBe(true);
});

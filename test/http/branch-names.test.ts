import { ACME_REPO, expectProblem, post, queueRef, storeSnapshot } from './helpers/requests.js';
import { createTestApp, type TestApp } from './helpers/test-app.js';

/** targetBranch follows git's ref-name rules: anything git would refuse is a 400 naming the field. */

let t: TestApp;
beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const REFUSED = [
  'feature/a..b',
  'main@{1}',
  'release.lock',
  'feature/',
  'main.',
  'a//b',
  '-main',
  'my branch',
  'a~1',
  'a^',
  'a:b',
  'what?',
  'st*r',
  'a[0]',
  'back\\slash',
  'tab\there',
  'nul\u0000',
  'bell\u0007',
  'del\u007f',
  'lone\ud800surrogate',
  '.hidden',
  'x/.y',
  '@',
];

test.each(REFUSED)('createQueue with targetBranch %j is 400 naming targetBranch, and creates nothing', async (branch) => {
  const before = await storeSnapshot(t);
  const res = await post(t, 'createQueue', { repo: ACME_REPO, targetBranch: branch });
  expectProblem(res, 400, 'invalid_request');
  expect(res.body.errors).toEqual([{ path: 'targetBranch', message: expect.any(String) }]);
  expect(await storeSnapshot(t)).toBe(before);
});

test.each(['main', 'release/2026.11', 'feature/ünïcode-名前', 'a-b_c+d', 'v1.2.3', 'users/ada/fix#12'])('targetBranch %j is accepted', async (branch) => {
  expect((await post(t, 'createQueue', queueRef(branch))).status).toBe(200);
});

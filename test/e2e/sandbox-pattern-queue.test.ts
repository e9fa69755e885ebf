import request from 'supertest';
import { SandboxService } from './sandbox-service.js';

/**
 * Queue templates for branch patterns through the REST API, with the service wired as `mergeq serve`
 * wires it (sandbox git host, real engine, virtual time): the first submit of a PR to `release/1.2`
 * creates its queue from the template of `release/*`, which then tests and merges the PR.
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
let svc: SandboxService;

beforeEach(async () => {
  svc = await SandboxService.start();
});
afterEach(() => svc.stop());

async function openPull(baseBranch: string): Promise<number> {
  const res = await request(svc.app).post('/sandbox/pulls').set('x-api-token', svc.token).send({ repo: REPO, title: 'fix', author: 'dev', bad: false, ciMinutes: 5, baseBranch });
  expect(res.status).toBe(200);
  return res.body.number as number;
}

test('the first submit to release/1.2 creates its queue from the release/* template, which merges the PR', async () => {
  await svc.ok('createQueueTemplate', { repo: REPO, pattern: 'release/*', concurrency: 2, mergeMethod: 'merge_commit' });
  const pr = await openPull('release/1.2');
  const queue = { repo: REPO, targetBranch: 'release/1.2' };
  expect((await svc.api('getQueue', queue)).status).toBe(404);

  await svc.ok('submitPullRequest', { ...queue, pr: { number: pr } });
  const created = (await svc.ok('getQueue', queue)).body;
  expect(created).toMatchObject({ branch: 'release/1.2', concurrency: 2, mergeMethod: 'merge_commit', batch: false, createdFrom: { pattern: 'release/*' }, settingsSource: 'api' });
  const listed = (await svc.ok('listQueues', { repo: REPO })).body.queues as { branch: string }[];
  expect(listed.map((q) => q.branch)).toEqual(['release/1.2']);

  await svc.advanceMinutes(10);
  expect((await svc.ok('getSubmittedPullRequest', { ...queue, pr: { number: pr } })).body.state).toBe('MERGED');
  // Managed like any queue: its settings change through the API, the template's stay.
  await svc.ok('updateQueue', { ...queue, concurrency: 3 });
  expect((await svc.ok('listQueueTemplates', { repo: REPO })).body.templates).toMatchObject([{ pattern: 'release/*', settings: { concurrency: 2, mergeMethod: 'merge_commit' } }]);
});

test('a branch no template matches still has no queue; * stays within one path segment, ** does not', async () => {
  await svc.ok('createQueueTemplate', { repo: REPO, pattern: 'release/*' });
  const nested = await openPull('release/1.2/hotfix');
  const refused = await svc.api('submitPullRequest', { repo: REPO, targetBranch: 'release/1.2/hotfix', pr: { number: nested } });
  expect(refused.status).toBe(404);
  expect(refused.body.code).toBe('queue_not_found');

  await svc.ok('createQueueTemplate', { repo: REPO, pattern: 'release/**', batch: true });
  await svc.ok('submitPullRequest', { repo: REPO, targetBranch: 'release/1.2/hotfix', pr: { number: nested } });
  expect((await svc.ok('getQueue', { repo: REPO, targetBranch: 'release/1.2/hotfix' })).body).toMatchObject({ batch: true, createdFrom: { pattern: 'release/**' } });
});

test('template operations: a second template for a pattern is 409, a bad pattern or setting a 400 naming the field', async () => {
  await svc.ok('createQueueTemplate', { repo: REPO, pattern: 'release/*' });
  const again = await svc.api('createQueueTemplate', { repo: REPO, pattern: 'release/*' });
  expect([again.status, again.body.code]).toEqual([409, 'template_exists']);
  const badPattern = await svc.api('createQueueTemplate', { repo: REPO, pattern: 'release/[0-9]' });
  expect(badPattern.status).toBe(400);
  expect(badPattern.body.errors.map((e: { path: string }) => e.path)).toEqual(['pattern']);
  const typo = await svc.api('createQueueTemplate', { repo: REPO, pattern: 'x/*', concurency: 2 });
  expect(typo.status).toBe(400);
  expect(JSON.stringify(typo.body.errors)).toContain('concurency');
  expect((await svc.ok('updateQueueTemplate', { repo: REPO, pattern: 'release/*', flakeRetries: 3 })).body.settings).toEqual({ flakeRetries: 3 });
  expect((await svc.api('updateQueueTemplate', { repo: REPO, pattern: 'hotfix/*', flakeRetries: 3 })).status).toBe(404);
  expect((await svc.ok('deleteQueueTemplate', { repo: REPO, pattern: 'release/*' })).body).toEqual({ deleted: true });
  expect((await svc.ok('listQueueTemplates', {})).body.templates).toEqual([]);
});

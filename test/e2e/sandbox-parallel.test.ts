import { SandboxService } from './sandbox-service.js';

/**
 * Parallel mode as a user of the REST API sees it (wired like `mergeq serve` with the sandbox git
 * host; only the clock is virtual): a slow PR, then two PRs on other targets. The two independent
 * ones are tested alone and merge first; a PR sharing the slow one's target waits for it.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'monorepo' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

let svc: SandboxService;
const ok = (op: string, body: unknown) => svc.ok(op, body);
const openPull = (title: string, ciMinutes: number) => svc.openPull(REPO, title, { bad: false, ciMinutes });
const stateOf = async (n: number) => (await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as { state: string; readiness: { hasImpactedTargets: boolean } };

beforeAll(async () => {
  svc = await SandboxService.start();
  await ok('createQueue', { ...QUEUE, mode: 'parallel', concurrency: 10 });
});
afterAll(async () => {
  await svc?.stop();
});

test('two independent PRs submitted behind a slow one are tested alone and merge before it', async () => {
  const slow = await openPull('slow change to //core', 60);
  const docs = await openPull('docs fix', 10);
  const web = await openPull('web tweak', 10);
  const coreToo = await openPull('another //core change', 10);
  for (const pr of [slow, docs, web, coreToo]) await ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number } });
  await svc.settle();
  // Parallel mode: nothing is ready before its impacted targets are known.
  expect((await stateOf(slow.number)).state).toBe('NOT_READY');
  expect((await stateOf(slow.number)).readiness.hasImpactedTargets).toBe(false);

  const targets: [typeof slow, string[]][] = [
    [slow, ['//core:lib', '//core:test']],
    [docs, ['//docs:site']],
    [web, ['//web:app']],
    [coreToo, ['//core:lib']],
  ];
  for (const [pr, names] of targets) {
    await ok('setImpactedTargets', { ...QUEUE, pr: { number: pr.number, sha: pr.headSha }, impactedTargets: names });
  }
  await svc.settle();

  const runs = (await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as { testedPullRequests: { prNumber: number }[] }[];
  expect(runs.map((r) => r.testedPullRequests.map((p) => p.prNumber)).sort((a, b) => a.length - b.length || a[0]! - b[0]!)).toEqual([
    [slow.number],
    [docs.number],
    [web.number],
    [slow.number, coreToo.number],
  ]);

  await svc.advanceMinutes(15);
  expect((await stateOf(docs.number)).state).toBe('MERGED');
  expect((await stateOf(web.number)).state).toBe('MERGED');
  expect((await stateOf(slow.number)).state).toBe('TESTING');
  // #4 shares a target with the slow one: it is tested on top of it and cannot merge before it.
  expect((await stateOf(coreToo.number)).state).toBe('TESTING');

  await svc.advanceMinutes(50);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([docs.number, web.number, slow.number, coreToo.number]);
});

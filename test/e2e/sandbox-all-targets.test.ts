import { SandboxService } from './sandbox-service.js';

/**
 * An `ALL` PR as a user of the REST API sees it in parallel mode (docs/all-targets.md): submitted
 * while the queue is busy, it waits NOT_READY for fewer runs in flight, holding nothing; PRs
 * submitted after it are tested and merge meanwhile; once the long runs are done it joins, is tested
 * on what has merged, and merges.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'monorepo' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

let svc: SandboxService;
const ok = (op: string, body: unknown) => svc.ok(op, body);
type PrView = { state: string; reason: { code: string; message: string } | null };
const viewOf = async (n: number) => (await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as PrView;

async function submit(title: string, ciMinutes: number, targets: string[] | 'ALL') {
  const pr = await svc.openPull(REPO, title, { bad: false, ciMinutes });
  await ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number } });
  await ok('setImpactedTargets', { ...QUEUE, pr: { number: pr.number, sha: pr.headSha }, impactedTargets: targets });
  await svc.settle();
  return pr.number;
}

beforeAll(async () => {
  svc = await SandboxService.start();
  // At most 45% of 4, so 1 run under test may restart when an ALL PR joins.
  await ok('createQueue', { ...QUEUE, mode: 'parallel', concurrency: 4 });
});
afterAll(async () => {
  await svc?.stop();
});

test('an ALL PR waits for a quieter moment while later PRs merge, then joins ahead of what is still under test', async () => {
  const core = await submit('core change', 40, ['//core:lib']);
  const web = await submit('web change', 50, ['//web:app']);
  const toolchain = await submit('toolchain bump', 20, 'ALL');
  const waiting = await viewOf(toolchain);
  expect(waiting.state).toBe('NOT_READY');
  expect(waiting.reason?.code).toBe('all_targets_wait');
  expect(waiting.reason?.message).toContain('at most 1 of the runs in flight (2 when it began to wait)');

  // Holding nothing: a PR submitted after it is tested alone and merges first.
  const docs = await submit('docs fix', 10, ['//docs:site']);
  await svc.advanceMinutes(12);
  expect((await viewOf(docs)).state).toBe('MERGED');
  expect((await viewOf(toolchain)).state).toBe('NOT_READY');

  // Minute 40: core merges, one run is left under test — the ALL PR joins ahead of it, and web
  // restarts on top of it.
  await svc.advanceMinutes(30);
  expect((await viewOf(core)).state).toBe('MERGED');
  expect((await viewOf(toolchain)).state).toBe('TESTING');
  const webNow = await viewOf(web);
  expect(webNow.state).toBe('TESTING');
  expect(webNow.reason?.code).toBe('test_started');
  expect((await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: web } })).body.history.map((t: { reason: { code: string } }) => t.reason.code)).toContain('all_targets_ahead');

  await svc.advanceMinutes(60);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([docs, core, toolchain, web]);
});

test('a waiting ALL PR joins when its two hours are up, with no CI result arriving meanwhile', async () => {
  await ok('updateQueue', { ...QUEUE, concurrency: 2 }); // no restart allowed at all
  const long = await submit('long migration', 300, ['//db:schema']);
  const toolchain = await submit('compiler upgrade', 20, 'ALL');
  expect((await viewOf(toolchain)).state).toBe('NOT_READY');
  // No CI result arrives for five hours: only the wait's deadline can place it.
  await svc.advanceMinutes(119);
  expect((await viewOf(toolchain)).state).toBe('NOT_READY');
  await svc.advanceMinutes(2);
  expect((await viewOf(toolchain)).state).toBe('TESTING');
  const longNow = await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: long } });
  expect(longNow.body.history.map((t: { reason: { code: string } }) => t.reason.code)).toContain('all_targets_ahead');
});

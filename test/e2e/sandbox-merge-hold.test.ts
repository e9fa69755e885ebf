import { SandboxService } from './sandbox-service.js';

/**
 * Merge windows and freezes end to end (docs/queue-policies.md): the real service over HTTP, the
 * real engine with its timers, the sandbox git host and its CI, virtual time.
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'hold' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const CI_MINUTES = 5;
let svc: SandboxService;

beforeEach(async () => {
  svc = await SandboxService.start();
});
afterEach(async () => {
  await svc.stop();
});

async function openAndSubmit(title: string, priority?: string): Promise<{ number: number; headSha: string }> {
  const pr = await svc.openPull(REPO, title, { bad: false, ciMinutes: CI_MINUTES });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number }, ...(priority ? { priority } : {}) });
  return pr;
}

async function stateOf(n: number): Promise<string> {
  return (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body.state as string;
}

test('a freeze holds a passed run unmerged until unfrozen, then it merges; getQueue and the PR status say so', async () => {
  await svc.ok('createQueue', QUEUE);
  const frozen = await svc.ok('freezeQueue', { ...QUEUE, reason: 'release 4.2' });
  expect(frozen.body.state).toBe('running');
  expect(frozen.body.freeze).toEqual({ startedAt: '2026-11-22T10:00:00.000Z', endsAt: null, reason: 'release 4.2', by: expect.any(String), allowPullRequests: [] });

  const pr = await openAndSubmit('held by the freeze');
  await svc.advanceMinutes(CI_MINUTES + 2);
  expect(await stateOf(pr.number)).toBe('TESTS_PASSED');
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([]);
  const status = svc.sandbox.reportedStatuses(REPO, pr.headSha).at(-1);
  expect(status?.description).toBe('Tests passed; frozen: release 4.2');

  await svc.advanceMinutes(60);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([]);

  const thawed = await svc.ok('unfreezeQueue', QUEUE);
  expect(thawed.body.freeze).toBeNull();
  await svc.settle();
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([pr.number]);
  expect(await stateOf(pr.number)).toBe('MERGED');
});

test('a freeze with endsAt ends by itself: the engine wakes at that time and merges', async () => {
  await svc.ok('createQueue', QUEUE);
  await svc.ok('freezeQueue', { ...QUEUE, reason: 'deploy', endsAt: '2026-11-22T10:30:00Z' });
  const pr = await openAndSubmit('waits for the end of the freeze');
  await svc.advanceMinutes(29);
  expect(await stateOf(pr.number)).toBe('TESTS_PASSED');
  await svc.advanceMinutes(1);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([pr.number]);
  expect((await svc.ok('getQueue', QUEUE)).body.freeze).toBeNull();
});

test('an urgent PR, or one the freeze names, passes the freeze; the others wait', async () => {
  await svc.ok('createQueue', { ...QUEUE, concurrency: 3 });
  const held = await openAndSubmit('ordinary');
  const named = await svc.openPull(REPO, 'named by the freeze', { bad: false, ciMinutes: CI_MINUTES });
  await svc.ok('freezeQueue', { ...QUEUE, reason: 'release', allowPullRequests: [named.number] });
  const urgent = await openAndSubmit('hotfix', 'urgent');
  await svc.advanceMinutes(CI_MINUTES + 2);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([urgent.number]);
  expect(await stateOf(held.number)).toBe('TESTS_PASSED');

  await svc.ok('cancelPullRequest', { ...QUEUE, pr: { number: held.number } });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: named.number } });
  await svc.advanceMinutes(CI_MINUTES + 2);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([urgent.number, named.number]);
});

test('outside its merge window nothing merges; it merges when the window opens', async () => {
  // Sunday 2026-11-22 10:00 UTC is 11:00 in Berlin; the window opens at 11:30 there.
  const windows = { timeZone: 'Europe/Berlin', windows: [{ days: ['sun'], start: '11:30', end: '18:00' }] };
  const created = await svc.ok('createQueue', { ...QUEUE, mergeWindows: windows });
  expect(created.body.mergeWindows).toEqual(windows);
  expect(created.body.mergeWindow).toEqual({ open: false, nextChangeAt: '2026-11-22T10:30:00.000Z' });
  const pr = await openAndSubmit('waits for the window');
  await svc.advanceMinutes(CI_MINUTES + 2);
  expect(await stateOf(pr.number)).toBe('TESTS_PASSED');
  expect(svc.sandbox.reportedStatuses(REPO, pr.headSha).at(-1)?.description).toBe('Tests passed; outside merge window until 2026-11-22 10:30 UTC');
  await svc.advanceMinutes(29 - CI_MINUTES - 2);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([]);
  await svc.advanceMinutes(1);
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual([pr.number]);
  expect((await svc.ok('getQueue', QUEUE)).body.mergeWindow).toEqual({ open: true, nextChangeAt: '2026-11-22T17:00:00.000Z' });
});

test('bad windows and freezes are 400s naming the field', async () => {
  const problems = async (op: string, body: unknown) => {
    const res = await svc.api(op, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    return (res.body.errors as { path: string }[]).map((e) => e.path);
  };
  expect(await problems('createQueue', { ...QUEUE, mergeWindows: { timeZone: 'Mars/Olympus', windows: [{ days: ['mon'], start: '09:00', end: '17:00' }] } })).toEqual(['mergeWindows.timeZone']);
  expect(await problems('createQueue', { ...QUEUE, mergeWindows: { timeZone: 'UTC', windows: [{ days: ['mon'], start: '9am', end: '17:00' }] } })).toEqual(['mergeWindows.windows.0.start']);
  expect(await problems('createQueue', { ...QUEUE, mergeWindows: { timeZone: 'UTC', windows: [{ days: ['mon'], start: '17:00', end: '09:00' }] } })).toEqual(['mergeWindows.windows.0.end']);
  expect(await problems('createQueue', { ...QUEUE, mergeWindows: { timeZone: 'UTC', windows: [{ days: ['funday'], start: '09:00', end: '17:00' }] } })).toEqual(['mergeWindows.windows.0.days.0']);
  expect(await problems('createQueue', { ...QUEUE, mergeWindows: { timeZone: 'UTC', windows: [], tz: 1 } })).toEqual(expect.arrayContaining(['mergeWindows.tz']));
  expect(await problems('createQueue', { ...QUEUE, holdMode: 'never' })).toEqual(['holdMode']);
  await svc.ok('createQueue', QUEUE);
  expect(await problems('freezeQueue', { ...QUEUE })).toEqual(['reason']);
  expect(await problems('freezeQueue', { ...QUEUE, reason: 'x', endsAt: 'tomorrow' })).toEqual(['endsAt']);
  expect(await problems('freezeQueue', { ...QUEUE, reason: 'x', endsAt: '2020-01-01T00:00:00Z' })).toEqual(['endsAt']);
  expect(await problems('freezeQueue', { ...QUEUE, reason: 'x', allowPullRequests: [0] })).toEqual(['allowPullRequests.0']);
});

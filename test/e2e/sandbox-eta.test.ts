import { SandboxService } from './sandbox-service.js';

/** The ETA a user reads from getSubmittedPullRequest and getQueue, against when the PRs really merge. */

const REPO = { host: 'github.com', owner: 'acme', name: 'eta' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
let svc: SandboxService;

beforeEach(async () => {
  svc = await SandboxService.start();
  await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 1 });
});
afterEach(async () => {
  await svc.stop();
});

const pr = async (n: number) => (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body;

test('after one run, each PR behind gets an ETA that matches its merge to the minute', async () => {
  const first = (await svc.openPull(REPO, 'first', { bad: false, ciMinutes: 10 })).number;
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: first } });
  await svc.settle();
  expect((await pr(first)).estimateReason).toEqual({ code: 'no_ci_history', message: 'no test run has finished yet to estimate from' });
  await svc.advanceMinutes(11);
  expect((await pr(first)).state).toBe('MERGED');

  const numbers: number[] = [];
  for (let i = 0; i < 3; i++) numbers.push((await svc.openPull(REPO, `next ${i}`, { bad: false, ciMinutes: 10 })).number);
  for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  const given = new Map<number, number>();
  for (const n of numbers) given.set(n, Date.parse((await pr(n)).estimatedMergeAt));
  const queued = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests as { prNumber: number; estimatedMergeAt: string }[];
  expect(queued.map((e) => Date.parse(e.estimatedMergeAt))).toEqual(numbers.map((n) => given.get(n)));

  await svc.advanceMinutes(35);
  for (const n of numbers) {
    const record = await pr(n);
    expect(record.state).toBe('MERGED');
    expect(record.estimatedMergeAt).toBeNull();
    expect(Math.abs(Date.parse(record.stateChangedAt) - given.get(n)!)).toBeLessThanOrEqual(60_000);
  }
});

test('a paused queue gives no ETA, and says why', async () => {
  const n = (await svc.openPull(REPO, 'one', { bad: false, ciMinutes: 10 })).number;
  await svc.ok('updateQueue', { ...QUEUE, state: 'paused' });
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  expect(await pr(n)).toMatchObject({ estimatedMergeAt: null, estimateReason: { code: 'queue_paused', message: 'the queue is paused' } });
});

test('the 80% range spans what the recent runs took, in getSubmittedPullRequest and getQueue alike, and holds the merge', async () => {
  // Two runs, of 8 and 20 minutes, make the history.
  for (const ciMinutes of [8, 20]) {
    const n = (await svc.openPull(REPO, `history ${ciMinutes}`, { bad: false, ciMinutes })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    await svc.advanceMinutes(ciMinutes + 1);
    expect((await pr(n)).state).toBe('MERGED');
  }
  const n = (await svc.openPull(REPO, 'next', { bad: false, ciMinutes: 12 })).number;
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  const record = await pr(n);
  const startedAt = Date.parse(record.stateChangedAt);
  expect(record.estimatedMergeRange).toEqual({ earliest: new Date(startedAt + 8 * 60_000).toISOString(), latest: new Date(startedAt + 20 * 60_000).toISOString(), confidence: 0.8 });
  const queued = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests as { prNumber: number; estimatedMergeRange: unknown }[];
  expect(queued.find((e) => e.prNumber === n)?.estimatedMergeRange).toEqual(record.estimatedMergeRange);

  await svc.advanceMinutes(13);
  const merged = await pr(n);
  expect(merged.state).toBe('MERGED');
  expect(merged.estimatedMergeRange).toBeNull();
  expect(Date.parse(merged.stateChangedAt)).toBeGreaterThanOrEqual(Date.parse(record.estimatedMergeRange.earliest));
  expect(Date.parse(merged.stateChangedAt)).toBeLessThanOrEqual(Date.parse(record.estimatedMergeRange.latest));
});

describe('a freeze holds the ETA back, and says so', () => {
  // Virtual time starts at 2026-11-22 10:00 UTC; one 10-minute run makes the history.
  beforeEach(async () => {
    const n = (await svc.openPull(REPO, 'history', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    await svc.advanceMinutes(11);
    expect((await pr(n)).state).toBe('MERGED');
  });

  test('frozen until a time: the estimate falls after it, the same on every read, and the PR held after its tests passed names the freeze', async () => {
    await svc.ok('freezeQueue', { ...QUEUE, reason: 'release', endsAt: '2026-12-24T00:00:00Z' });
    const n = (await svc.openPull(REPO, 'held', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    const hold = { message: 'frozen until 2026-12-24 00:00 UTC: release', endsAt: '2026-12-24T00:00:00.000Z' };
    const first = await pr(n);
    expect(first).toMatchObject({ estimatedMergeAt: '2026-12-24T00:00:00.000Z', estimateReason: null, mergeHold: hold });
    expect(Date.parse(first.estimatedMergeRange.earliest)).toBeGreaterThanOrEqual(Date.parse('2026-12-24T00:00:00Z'));
    await svc.advanceMinutes(12);
    const later = await pr(n);
    expect(later).toMatchObject({ state: 'TESTS_PASSED', estimatedMergeAt: '2026-12-24T00:00:00.000Z', mergeHold: hold });
    const listed = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests[0];
    expect(listed).toMatchObject({ prNumber: n, estimatedMergeAt: '2026-12-24T00:00:00.000Z', mergeHold: hold });
  });

  test('frozen with no end: no estimate, "held", naming the freeze; an urgent PR passes it and keeps its estimate', async () => {
    await svc.ok('freezeQueue', { ...QUEUE, reason: 'incident' });
    const n = (await svc.openPull(REPO, 'held', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    expect(await pr(n)).toMatchObject({
      estimatedMergeAt: null,
      estimateReason: { code: 'queue_held', message: 'held: frozen: incident; no estimate until it is lifted' },
      mergeHold: { message: 'frozen: incident', endsAt: null },
    });
    await svc.ok('cancelPullRequest', { ...QUEUE, pr: { number: n } });
    const urgent = (await svc.openPull(REPO, 'hotfix', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: urgent }, priority: 'urgent' });
    await svc.settle();
    expect(await pr(urgent)).toMatchObject({ estimateReason: null, mergeHold: null });
    expect((await pr(urgent)).estimatedMergeAt).not.toBeNull();
  });
});

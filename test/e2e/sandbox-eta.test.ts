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

import request from 'supertest';
import { SandboxService } from './sandbox-service.js';

/**
 * Acceptance test of the queue engine, as a user of the REST API sees it. The service is wired as
 * `mergeq serve` wires it (SQLite store, the real engine started with its polling, the sandbox git
 * host with its /sandbox routes); only the wall clock is replaced by virtual time. Every action goes
 * through HTTP; the sandbox object is read only as the git host's own record of what it merged.
 *
 * Scenario: a single-mode queue with concurrency 4; ten PRs, the 3rd one bad, all submitted at once.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const CI_MINUTES = 10;
const PR_COUNT = 10;
const BAD_INDEX = 2;

interface PrRecord {
  prNumber: number;
  state: string;
  stateChangedAt: string;
  reason: { code: string; message: string } | null;
  history: { state: string; at: string; reason: { code: string; message: string } }[];
}
interface TestRunRecord {
  id: string;
  status: string;
  testedPullRequests: { prNumber: number; prSha: string; prTitle: string }[];
}
interface SandboxPullView {
  number: number;
  state: string;
}

let svc: SandboxService;
const ok = (op: string, body: unknown) => svc.ok(op, body);
const openSandboxPull = async (title: string, bad: boolean) => (await svc.openPull(REPO, title, { bad, ciMinutes: CI_MINUTES })).number;

/** Moves virtual time a minute at a time until no PR is left in the queue; the minutes it took. */
async function runUntilQuiet(limitMinutes: number): Promise<number> {
  for (let minute = 1; minute <= limitMinutes; minute++) {
    await svc.advanceMinutes(1);
    if ((await ok('getQueue', QUEUE)).body.enqueuedPullRequests.length === 0) return minute;
  }
  const left = (await ok('getQueue', QUEUE)).body.enqueuedPullRequests;
  throw new Error(`the queue is not quiet after ${limitMinutes} minutes: ${JSON.stringify(left)}`);
}

const numbers: number[] = [];
let bad: number;
let good: number[];
let firstRuns: TestRunRecord[];
let minutesToQuiet: number;
const records = new Map<number, PrRecord>();

beforeAll(async () => {
  svc = await SandboxService.start();
  await ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 4 });
  for (let i = 0; i < PR_COUNT; i++) numbers.push(await openSandboxPull(`change ${i + 1}`, i === BAD_INDEX));
  bad = numbers[BAD_INDEX]!;
  good = numbers.filter((n) => n !== bad);
  for (const n of numbers) await ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  firstRuns = (await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as TestRunRecord[];

  minutesToQuiet = await runUntilQuiet(12 * CI_MINUTES);
  for (const n of numbers) records.set(n, (await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as PrRecord);
});
afterAll(async () => {
  await svc?.stop();
});

const testedNumbers = (run: TestRunRecord) => run.testedPullRequests.map((p) => p.prNumber);
const runsOf = async (prNumber: number) => (await ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: prNumber } })).body.testRuns as TestRunRecord[];

test('speculation: four runs start at once, each on top of every PR ahead of it', () => {
  expect(firstRuns.map(testedNumbers).sort((a, b) => a.length - b.length)).toEqual([
    numbers.slice(0, 1),
    numbers.slice(0, 2),
    numbers.slice(0, 3),
    numbers.slice(0, 4),
  ]);
});

test('the queue empties within a few CI rounds and leaves no run in flight', async () => {
  // Ideal: round 1 merges #1-#2 and fails #3's run; round 2 merges #4-#7; round 3 merges #8-#10.
  // One round of slack; waiting for each failure to be confirmed would take more.
  expect(minutesToQuiet).toBeLessThanOrEqual(4 * CI_MINUTES);
  expect((await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns).toEqual([]);
});

test('the nine good PRs are MERGED, each once, in queue order', async () => {
  expect(good.map((n) => [n, records.get(n)!.state])).toEqual(good.map((n) => [n, 'MERGED']));
  const mergedAt = good.map((n) => Date.parse(records.get(n)!.stateChangedAt));
  expect(mergedAt).toEqual([...mergedAt].sort((a, b) => a - b));
  // Merges of one CI round share a timestamp: the git host's log tells their order.
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual(good);
  const pulls = (await request(svc.app).get('/sandbox/pulls').set('x-api-token', svc.token).query(REPO)).body.pulls as SandboxPullView[];
  expect(pulls.filter((p) => p.state === 'merged').map((p) => p.number)).toEqual(good);
});

test('the bad PR is FAILED with tests_failed and never reached main', async () => {
  const record = records.get(bad)!;
  expect(record.state).toBe('FAILED');
  expect(record.reason?.code).toBe('tests_failed');
  expect(record.history.at(-1)).toMatchObject({ state: 'FAILED', reason: { code: 'tests_failed' } });
  const pull = (await request(svc.app).get(`/sandbox/pulls/${bad}`).set('x-api-token', svc.token).query(REPO)).body as SandboxPullView;
  expect(pull.state).toBe('open');
});

test('the PR right behind the bad one was restarted without it (TESTING -> PENDING in its history)', () => {
  const states = records.get(numbers[BAD_INDEX + 1]!)!.history.map((h) => h.state);
  expect(states.some((s, i) => s === 'TESTING' && states[i + 1] === 'PENDING')).toBe(true);
  // The PRs ahead of the bad one were never restarted.
  for (const n of numbers.slice(0, BAD_INDEX)) {
    expect(records.get(n)!.history.map((h) => h.state)).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'MERGED']);
  }
});

test("the testing details of a PR list its runs with what each tested; the bad PR's failed runs hold it", async () => {
  const runsOfBad = await runsOf(bad);
  for (const run of runsOfBad) expect(testedNumbers(run)).toContain(bad);
  const failed = runsOfBad.filter((r) => r.status === 'failed');
  expect(failed.length).toBeGreaterThan(0);
  // Each failed run tested the bad PR last, on top of PRs ahead of it only.
  for (const run of failed) {
    expect(testedNumbers(run).at(-1)).toBe(bad);
    expect(testedNumbers(run).every((n) => numbers.indexOf(n) <= BAD_INDEX)).toBe(true);
  }

  // The PR behind it: its run with the bad PR was cancelled, and the run it merged on left it out.
  const runsOfNext = await runsOf(numbers[BAD_INDEX + 1]!);
  expect(runsOfNext.some((r) => r.status === 'cancelled' && testedNumbers(r).includes(bad))).toBe(true);
  const passed = runsOfNext.filter((r) => r.status === 'passed');
  expect(passed.length).toBeGreaterThan(0);
  for (const run of passed) expect(testedNumbers(run)).not.toContain(bad);
  for (const run of runsOfNext) expect(run.testedPullRequests.every((p) => typeof p.prSha === 'string' && p.prTitle.startsWith('change '))).toBe(true);
});

test('the metrics count nine merged and one failed in the last hour', async () => {
  const res = await svc.metrics(REPO);
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*conclusion="merged"[^}]*\} 9$/m);
  expect(res.text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*conclusion="failed"[^}]*\} 1$/m);
  expect(res.text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*conclusion="cancelled"[^}]*\} 0$/m);
  expect(res.text).toMatch(/^mq_depth_current\{[^}]*queue_type="main"[^}]*\} 0$/m);
  const restarts = /^mq_pr_restarts_1h_total\{[^}]*queue_type="main"[^}]*\} (\d+)$/m.exec(res.text);
  expect(Number(restarts?.[1])).toBeGreaterThanOrEqual(1);
});

import { SandboxService } from './sandbox-service.js';

/**
 * Batching with bisection through the REST API, wired as `mergeq serve` wires it (SQLite store, the
 * real engine, the sandbox git host), with virtual time. A single-mode queue with batches of 4; four
 * PRs, the 2nd one bad, submitted at once: they are tested as one batch, the batch fails, bisection
 * runs test its prefixes, and the three good PRs merge while the bad one fails.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'batched' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const CI_MINUTES = 10;
const BAD_INDEX = 1;

interface PrRecord {
  prNumber: number;
  state: string;
  reason: { code: string; message: string } | null;
  history: { state: string; at: string; reason: { code: string; message: string } }[];
}
interface TestRunRecord {
  id: string;
  kind: 'main' | 'bisection';
  status: string;
  testedPullRequests: { prNumber: number }[];
}

let svc: SandboxService;
const ok = (op: string, body: unknown) => svc.ok(op, body);
const openSandboxPull = async (title: string, bad: boolean) => (await svc.openPull(REPO, title, { bad, ciMinutes: CI_MINUTES })).number;

const numbers: number[] = [];
let bad: number;
let good: number[];
let firstRuns: TestRunRecord[];
/** Every run the queue's testing details showed while the PRs were in the queue, by id (last seen). */
const seenRuns = new Map<string, TestRunRecord>();
let mostBisectionRunsInFlight = 0;
const records = new Map<number, PrRecord>();

beforeAll(async () => {
  svc = await SandboxService.start();
  await ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 2, batch: true, batchingMinSize: 4, bisectionConcurrency: 3 });
  for (let i = 0; i < 4; i++) numbers.push(await openSandboxPull(`change ${i + 1}`, i === BAD_INDEX));
  bad = numbers[BAD_INDEX]!;
  good = numbers.filter((n) => n !== bad);
  for (const n of numbers) await ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
  await svc.settle();
  firstRuns = (await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as TestRunRecord[];

  for (let minute = 1; minute <= 12 * CI_MINUTES; minute++) {
    await svc.advanceMinutes(1);
    const runs = (await ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as TestRunRecord[];
    for (const run of runs) seenRuns.set(run.id, run);
    mostBisectionRunsInFlight = Math.max(mostBisectionRunsInFlight, runs.filter((r) => r.kind === 'bisection' && r.status === 'pending').length);
    if ((await ok('getQueue', QUEUE)).body.enqueuedPullRequests.length === 0) break;
  }
  for (const n of numbers) records.set(n, (await ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as PrRecord);
});
afterAll(async () => {
  await svc?.stop();
});

const testedNumbers = (run: TestRunRecord) => run.testedPullRequests.map((p) => p.prNumber);

test('the four PRs are tested together in one batch run', () => {
  expect(firstRuns.map((r) => [r.kind, testedNumbers(r)])).toEqual([['main', numbers]]);
});

test('the three good PRs are MERGED in queue order; the bad one is FAILED with tests_failed', async () => {
  expect(good.map((n) => [n, records.get(n)!.state])).toEqual(good.map((n) => [n, 'MERGED']));
  expect(svc.sandbox.mergedInOrder(REPO)).toEqual(good);
  expect(records.get(bad)!.state).toBe('FAILED');
  expect(records.get(bad)!.reason?.code).toBe('tests_failed');
  expect(records.get(bad)!.history.map((t) => t.reason.code)).toEqual(expect.arrayContaining(['batched', 'bisection_started', 'bisection_culprit']));
  expect((await ok('getQueue', QUEUE)).body.enqueuedPullRequests).toEqual([]);
});

test('the testing details showed the bisection runs: prefixes of the batch, at most 3 at once', () => {
  const bisection = [...seenRuns.values()].filter((r) => r.kind === 'bisection');
  expect(bisection.map(testedNumbers).sort((a, b) => a.length - b.length)).toEqual(
    expect.arrayContaining([numbers.slice(0, 1), numbers.slice(0, 2)]),
  );
  for (const run of bisection) expect(numbers.slice(0, testedNumbers(run).length)).toEqual(testedNumbers(run));
  expect(mostBisectionRunsInFlight).toBeGreaterThan(0);
  expect(mostBisectionRunsInFlight).toBeLessThanOrEqual(3);
});

test("the first PR merged on the bisection run that proved it, and the PR's own testing details list that run", async () => {
  const runs = (await ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: numbers[0]! } })).body.testRuns as TestRunRecord[];
  const proof = runs.find((r) => r.kind === 'bisection' && r.status === 'passed' && testedNumbers(r).join() === String(numbers[0]));
  expect(proof).toBeDefined();
  expect(records.get(numbers[0]!)!.history.map((t) => t.reason.code)).toContain('bisection_cleared');
});

test('the PRs behind the bad one went back to be batched again', () => {
  for (const n of numbers.slice(BAD_INDEX + 1)) expect(records.get(n)!.history.map((t) => t.reason.code)).toContain('batch_split');
});

test('the metrics label bisection runs queue_type="bisection"', async () => {
  const res = await svc.metrics(REPO);
  expect(res.status).toBe(200);
  expect(res.text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*conclusion="merged"[^}]*\} 3$/m);
  // Finished bisection runs are timed under their own label.
  const count = /^mq_pr_test_duration_1h_seconds_count\{[^}]*queue_type="bisection"[^}]*\} (\d+)$/m.exec(res.text);
  expect(Number(count?.[1])).toBeGreaterThan(0);
});

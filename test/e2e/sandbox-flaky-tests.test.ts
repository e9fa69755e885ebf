import request from 'supertest';
import { SandboxService } from './sandbox-service.js';

/**
 * The queue tells a flake from a failure (flaky-tests.md, "The queue and flakes"), through the REST
 * API in sandbox mode. The sandbox CI runs the repository's tests and uploads their results for each
 * test branch head through FlakyTestService.upload, as the CLI would; the queue learns from the
 * detector only what those uploads showed.
 *
 * The repository's tests are given through POST /sandbox/tests. The flaky test's attempts are scripted per CI run: in run 1 it fails then passes on retry (the
 * detector learns it is flaky), in run 2 it fails both attempts (the run fails on it alone).
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const FLAKY = 'checkout retries the payment';

interface PrRecord {
  state: string;
  reason: { code: string; message: string } | null;
  history: { state: string; reason: { code: string; message: string } }[];
}
interface RunRecord {
  status: string;
  failedTests: { name: string; knownFlaky: boolean; quarantined: boolean }[] | null;
}

let svc: SandboxService;

beforeAll(async () => {
  svc = await SandboxService.start();
  // The repository's tests, as a user gives them to `mergeq serve`'s sandbox (docs/flaky-tests.md, "Trying it in the sandbox").
  const tests = { repo: REPO, steadyTests: 3, flakyTests: [{ name: FLAKY, rate: 0, script: [['failed', 'passed'], ['failed', 'failed']] }] };
  const set = await request(svc.app).post('/sandbox/tests').set('x-api-token', svc.token).send(tests);
  expect(set.status).toBe(200);
  await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 1, flakeRetries: 1 });
});
afterAll(async () => {
  await svc?.stop();
});

async function submitAndWait(title: string, bad: boolean): Promise<{ pr: number; record: PrRecord; runs: RunRecord[] }> {
  const pr = (await svc.openPull(REPO, title, { bad, ciMinutes: 10 })).number;
  await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: pr } });
  for (let minute = 0; minute < 120; minute++) {
    await svc.advanceMinutes(1);
    const record = (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: pr } })).body as PrRecord;
    if (record.state === 'MERGED' || record.state === 'FAILED') {
      const runs = (await svc.ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: pr } })).body.testRuns as RunRecord[];
      return { pr, record, runs };
    }
  }
  throw new Error(`#${pr} did not leave the queue`);
}

test('a PR whose run fails only on a known flaky test is rerun and merges, with flaky_tests in its history', async () => {
  const first = await submitAndWait('first change', false);
  expect(first.record.state).toBe('MERGED');

  const { record, runs } = await submitAndWait('second change', false);
  expect(record.state).toBe('MERGED');
  const forgiven = record.history.find((h) => h.reason.code === 'flaky_tests');
  expect(forgiven?.reason.message).toContain(FLAKY);
  expect(runs.map((r) => r.status).sort()).toEqual(['failed', 'passed']);
  const failed = runs.find((r) => r.status === 'failed')!;
  expect(failed.failedTests).toEqual([{ testCaseId: expect.any(String), name: FLAKY, knownFlaky: true, quarantined: true }]);
});

test('a PR that breaks a test fails after one run, naming the test', async () => {
  const { pr, record, runs } = await submitAndWait('breaking change', true);
  expect(record.state).toBe('FAILED');
  expect(record.reason?.code).toBe('tests_failed');
  expect(record.reason?.message).toContain(`test of #${pr}`);
  expect(runs).toHaveLength(1);
  expect(runs[0]!.failedTests).toEqual([{ testCaseId: expect.any(String), name: `test of #${pr}`, knownFlaky: false, quarantined: false }]);
});

import { eventPayload } from '../../src/webhooks/payload.js';
import { SandboxService } from './sandbox-service.js';

/**
 * Verdicts (docs/verdicts.md) through the REST API, wired as `mergeq serve` wires it in sandbox mode:
 * a batch of four with one bad PR names it `culprit` with its failing test and the bisection runs,
 * and the three others `bystander` naming it; a flaky test forgiven on a rerun is `flaky` naming the
 * test; a CI error is `infrastructure`, retried, and the PR merges.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'verdicts' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const CI_MINUTES = 10;

interface Verdict {
  code: string;
  message: string;
  evidence: Record<string, unknown>;
}
interface PrRecord {
  prNumber: number;
  state: string;
  verdict: Verdict | null;
  history: { reason: { code: string }; verdict: Verdict | null }[];
}

async function record(svc: SandboxService, n: number): Promise<PrRecord> {
  return (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as PrRecord;
}

async function untilEmpty(svc: SandboxService, minutes: number): Promise<void> {
  for (let i = 0; i < minutes; i++) {
    await svc.advanceMinutes(1);
    if ((await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests.length === 0) return;
  }
}

describe('a batch of four with one bad PR', () => {
  let svc: SandboxService;
  const numbers: number[] = [];
  const records = new Map<number, PrRecord>();
  let bisectionRunIds: string[] = [];
  let runs: { id: string; kind: string; status: string; testedPullRequests: { prNumber: number }[]; verdicts: { prNumber: number; code: string }[] }[] = [];
  let queueDuring: { prNumber: number; verdict: Verdict | null }[] = [];
  let events: { type: string; data: { pullRequest?: { prNumber: number; verdict: Verdict | null } } }[] = [];

  beforeAll(async () => {
    svc = await SandboxService.start({ tests: { steadyTests: 3, flakyTests: [] } });
    // A subscription keeps the outbox's events (no dispatcher runs: they stay there to be read).
    await svc.ok('webhooks/create', { url: 'http://127.0.0.1:9/hook', events: ['pull_request.*'] });
    await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 2, batch: true, batchingMinSize: 4, bisectionConcurrency: 3 });
    for (let i = 0; i < 4; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: i === 1, ciMinutes: CI_MINUTES })).number);
    for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    // Once bisection has split the batch, getQueue already says who broke it.
    await svc.advanceMinutes(2 * CI_MINUTES + 1);
    queueDuring = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests;
    await untilEmpty(svc, 12 * CI_MINUTES);
    for (const n of numbers) records.set(n, await record(svc, n));
    runs = (await svc.ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: numbers[0]! } })).body.testRuns as typeof runs;
    bisectionRunIds = runs.filter((r) => r.kind === 'bisection').map((r) => r.id);
    events = (await svc.store.outbox.undispatchedEvents(10_000)).map(eventPayload) as typeof events;
  });
  afterAll(() => svc?.stop());

  test('the bad PR is FAILED with verdict culprit: its failing test, the runs, the bisection runs and step', () => {
    const bad = records.get(numbers[1]!)!;
    expect(bad.state).toBe('FAILED');
    expect(bad.verdict).toMatchObject({ code: 'culprit', message: `culprit: this pull request fails test of #${numbers[1]}` });
    const evidence = bad.verdict!.evidence as {
      failedTests: { name: string; firstFailureLine: string | null; runIds: string[] }[];
      failingChecks: { context: string; url: string }[];
      runs: { id: string; url: string }[];
      isolation: { method: string; bisectionRuns: { id: string; prNumbers: number[] }[]; step: string };
    };
    expect(evidence.failedTests.map((t) => [t.name, t.firstFailureLine])).toEqual([[`test of #${numbers[1]}`, `AssertionError: test of #${numbers[1]} failed`]]);
    expect(evidence.failingChecks).toEqual([{ context: 'ci', state: 'failure', url: expect.stringMatching(/^https:\/\/ci\.sandbox\.invalid\/runs\/\d+$/) }]);
    expect(evidence.runs.length).toBeGreaterThanOrEqual(2);
    expect(evidence.failedTests[0]!.runIds).toEqual(evidence.runs.map((r) => r.id));
    expect(evidence.isolation.method).toBe('bisection');
    expect(evidence.isolation.step).toContain(`the batch passed up to #${numbers[0]} and failed with it`);
    expect(evidence.isolation.bisectionRuns.map((r) => r.prNumbers)).toContainEqual(numbers.slice(0, 2));
    for (const r of evidence.isolation.bisectionRuns) expect(bisectionRunIds).toContain(r.id);
  });

  test('the three others are MERGED with verdict bystander naming the culprit and what it cost', () => {
    for (const n of [numbers[0]!, numbers[2]!, numbers[3]!]) {
      const r = records.get(n)!;
      expect([n, r.state, r.verdict?.code]).toEqual([n, 'MERGED', 'bystander']);
      expect(r.verdict!.message).toBe(`not this pull request: #${numbers[1]} broke the run it was in; retested without it`);
      const evidence = r.verdict!.evidence as { culprits: { prNumber: number }[]; cost: { runs: number; minutes: number } };
      expect(evidence.culprits.map((c) => c.prNumber)).toEqual([numbers[1]]);
      expect(evidence.cost.runs).toBeGreaterThanOrEqual(1);
      expect(evidence.cost.minutes).toBeGreaterThanOrEqual(CI_MINUTES);
    }
    expect(svc.sandbox.mergedInOrder(REPO)).toEqual([numbers[0], numbers[2], numbers[3]]);
  });

  test('the history says at which transition each verdict was given', () => {
    const third = records.get(numbers[2]!)!;
    expect(third.history.filter((t) => t.verdict).map((t) => [t.reason.code, t.verdict!.code])).toEqual([['batch_split', 'bystander']]);
  });

  test('the outbound events carry the verdict: the failed event the culprit, the restarted and merged events the bystander', () => {
    const of = (type: string, n: number) => events.filter((e) => e.type === type && e.data.pullRequest?.prNumber === n).map((e) => e.data.pullRequest!.verdict?.code);
    expect(of('pull_request.failed', numbers[1]!)).toEqual(['culprit']);
    for (const n of [numbers[0]!, numbers[2]!, numbers[3]!]) expect(of('pull_request.merged', n)).toEqual(['bystander']);
    // Before anything restarted it, its events carry none.
    expect(of('pull_request.submitted', numbers[2]!)).toEqual([undefined]);
  });

  test("the culprit's comment @-mentions its author with its failing test and the bisection runs; its status says the verdict", async () => {
    const bad = numbers[1]!;
    const [comment] = svc.sandbox.pullRequestComments(REPO, bad);
    expect(comment!.body).toContain(`**Verdict: \`culprit\`** — @dev culprit: this pull request fails test of #${bad}`);
    expect(comment!.body).toMatch(new RegExp(`- \`test of #${bad}\` — AssertionError: test of #${bad} failed \\(\\[bisection run #${numbers[0]}\\+#${bad}\\]\\(https://ci\\.sandbox\\.invalid/runs/\\d+\\)`));
    expect(comment!.body).toContain('Isolated by bisection: bisection: the batch passed up to');
    const pr = (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: bad } })).body as { prSha: string };
    expect(svc.sandbox.reportedStatuses(REPO, pr.prSha).at(-1)).toMatchObject({ state: 'failure', description: `culprit: this pull request fails test of #${bad}` });
  });

  test('no bystander is @-mentioned', () => {
    for (const n of [numbers[0]!, numbers[2]!, numbers[3]!]) {
      for (const c of svc.sandbox.pullRequestComments(REPO, n)) expect(c.body).not.toContain('@dev');
    }
  });

  test('the testing details name, on each run, the verdicts it is evidence for', () => {
    const prefix = runs.find((r) => r.kind === 'bisection' && r.status === 'failed' && r.testedPullRequests.length === 2)!;
    expect(prefix.verdicts).toEqual([
      { prNumber: numbers[0], code: 'bystander', message: expect.any(String) },
      { prNumber: numbers[1], code: 'culprit', message: expect.any(String) },
    ]);
    const batch = runs.find((r) => r.kind === 'main' && r.testedPullRequests.length === 4)!;
    expect(batch.verdicts.map((v) => [v.prNumber, v.code])).toEqual(numbers.map((n, i) => [n, i === 1 ? 'culprit' : 'bystander']));
  });

  test('the metrics count the verdicts of the last hour', async () => {
    const text = (await svc.metrics(REPO)).text;
    const count = (verdict: string) => Number(new RegExp(`^mq_pr_verdicts_1h_total\\{[^}]*verdict="${verdict}"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1]);
    expect([count('culprit'), count('bystander'), count('flaky'), count('manual')]).toEqual([1, 3, 0, 0]);
  });

  test('getQueue shows the verdict of the PRs still in the queue', () => {
    const behind = queueDuring.filter((p) => p.prNumber === numbers[2] || p.prNumber === numbers[3]);
    expect(behind.map((p) => p.verdict?.code)).toEqual(['bystander', 'bystander']);
  });
});

describe('a flaky test and a CI error', () => {
  let svc: SandboxService;
  afterEach(() => svc?.stop());

  test('a flaky test that failed and passed on the rerun: verdict flaky naming the test, and the PR merges', async () => {
    const flakyTests = [{ name: 'eventually consistent read', rate: 0, script: [['failed', 'failed'] as ('failed' | 'passed')[]] }];
    svc = await SandboxService.start({ tests: { steadyTests: 2, flakyTests } });
    // The test is not known flaky yet when the first run's results arrive (before its status, as a
    // CI job uploads them): without skipRetryOnRealFailure off, that failure would be taken as real.
    await svc.ok('createQueue', { ...QUEUE, flakeRetries: 1, skipRetryOnRealFailure: false });
    const n = (await svc.openPull(REPO, 'flaked', { bad: false, ciMinutes: CI_MINUTES })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await untilEmpty(svc, 6 * CI_MINUTES);
    const r = await record(svc, n);
    expect(r.state).toBe('MERGED');
    expect(r.verdict).toMatchObject({ code: 'flaky', message: 'flaky: eventually consistent read failed and passed on a rerun; not this pull request' });
    expect((r.verdict!.evidence as { tests: { name: string }[] }).tests.map((t) => t.name)).toEqual(['eventually consistent read']);
  });

  test('a CI error: verdict infrastructure with the CI status, retried, and the PR merges', async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', { ...QUEUE, flakeRetries: 1 });
    const pr = await svc.openPull(REPO, 'unlucky', { bad: false, ciMinutes: CI_MINUTES });
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number } });
    await svc.settle();
    const [run] = (await svc.ok('getMergeQueueTestingDetails', QUEUE)).body.testRuns as { testBranchSha: string }[];
    // The CI's runner died: it reports an error, not a test failure.
    await svc.engine.recordStatuses(REPO, run!.testBranchSha, [{ context: 'ci', state: 'error', url: 'https://ci.sandbox.invalid/runs/lost' }]);
    await untilEmpty(svc, 6 * CI_MINUTES);
    const r = await record(svc, pr.number);
    expect(r.state).toBe('MERGED');
    expect(r.verdict).toMatchObject({ code: 'infrastructure', message: "infrastructure: CI errored (ci: error); not this pull request's tests" });
    expect(r.verdict!.evidence).toMatchObject({ kind: 'error', checks: [{ context: 'ci', state: 'error', url: 'https://ci.sandbox.invalid/runs/lost' }] });
  });
});

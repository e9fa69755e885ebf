import { SandboxService } from './sandbox-service.js';

/**
 * Restart budgets through the engine and the REST API (docs/queue-rules.md, "Restart budgets"): a
 * run that ends in a CI error is retried within `restartBudgets.infrastructure` with verdict
 * `infrastructure`, then the PR is held (NOT_READY, `restart_budget`) with verdict `infrastructure`
 * and the CI's words; it is neither retested again nor failed as a culprit.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'budgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const CI_MINUTES = 10;

interface Verdict {
  code: string;
  message: string;
  evidence: Record<string, unknown>;
}
interface PrRecord {
  state: string;
  reason: { code: string; message: string };
  verdict: Verdict | null;
  history: { state: string; reason: { code: string; message: string }; verdict: Verdict | null }[];
}
interface RunRecord {
  id: string;
  status: string;
  testBranchSha: string | null;
}

describe('a CI that keeps erroring', () => {
  let svc: SandboxService;
  afterAll(() => svc?.stop());

  test('infrastructure, retried twice, then held after its budget with the CI\'s words; not retested', async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', { ...QUEUE, restartBudgets: { bystander: 3, infrastructure: 2 } });
    const pr = await svc.openPull(REPO, 'unlucky', { bad: false, ciMinutes: CI_MINUTES });
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: pr.number } });
    await svc.settle();
    const errored = new Set<string>();
    // Every run of it errors at once (its CI runner dies), before the sandbox CI would pass it.
    for (let i = 0; i < 6; i++) {
      const runs = (await svc.ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: pr.number } })).body.testRuns as RunRecord[];
      for (const run of runs.filter((r) => r.status === 'pending' && r.testBranchSha && !errored.has(r.id))) {
        errored.add(run.id);
        await svc.engine.recordStatuses(REPO, run.testBranchSha!, [{ context: 'ci', state: 'error', url: `https://ci.sandbox.invalid/runs/lost-${errored.size}` }]);
      }
      await svc.advanceMinutes(1);
    }
    expect(errored.size).toBe(3);
    const r = (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: pr.number } })).body as PrRecord;
    expect(r.state).toBe('NOT_READY');
    expect(r.reason.code).toBe('restart_budget');
    const retries = r.history.filter((t) => t.reason.code === 'infrastructure_retry');
    expect(retries.map((t) => [t.reason.message, t.verdict?.code])).toEqual([
      ['CI errored (ci: error https://ci.sandbox.invalid/runs/lost-1): retry 1 of 2', 'infrastructure'],
      ['CI errored (ci: error https://ci.sandbox.invalid/runs/lost-2): retry 2 of 2', 'infrastructure'],
    ]);
    expect(r.verdict).toMatchObject({
      code: 'infrastructure',
      message: expect.stringMatching(/^infrastructure, held: CI errored again \(ci: error https:\/\/ci\.sandbox\.invalid\/runs\/lost-3\) after 2 infrastructure retries \(budget 2\)/),
      evidence: { kind: 'error', checks: [{ context: 'ci', state: 'error', url: 'https://ci.sandbox.invalid/runs/lost-3' }] },
    });
    expect(r.history.some((t) => t.state === 'FAILED' || t.verdict?.code === 'culprit')).toBe(false);
    // Held: no new run, however long one waits.
    await svc.advanceMinutes(3 * CI_MINUTES);
    const runs = (await svc.ok('getMergeQueueTestingDetails', { ...QUEUE, pr: { number: pr.number } })).body.testRuns as RunRecord[];
    expect(runs.filter((run) => run.status === 'pending')).toEqual([]);
    const queue = (await svc.ok('getQueue', QUEUE)).body as { restartBudgets: unknown; enqueuedPullRequests: { prNumber: number; state: string; reason: { code: string } }[] };
    expect(queue.restartBudgets).toEqual({ bystander: 3, infrastructure: 2 });
    expect(queue.enqueuedPullRequests).toEqual([expect.objectContaining({ prNumber: pr.number, state: 'NOT_READY', reason: expect.objectContaining({ code: 'restart_budget' }) })]);
  });
});

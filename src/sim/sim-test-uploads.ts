import type { Org } from '../domain/org.js';
import type { FailedTest } from '../domain/run.js';
import type { Clock } from '../domain/clock.js';
import type { Fact } from '../engine/engine.js';
import type { TestResultsEvent } from '../githost/sandbox/ci.js';
import type { SandboxGitHost } from '../githost/sandbox/sandbox-host.js';
import { recordTestResults } from '../planner/index.js';
import { FlakyTestService } from '../service/flaky/flaky-test-service.js';
import type { Store } from '../store/store.js';

const SIM_ORG: Org = { id: 'sim', slug: 'sim', owners: ['sim.invalid/bench'], createdAt: new Date(0).toISOString() };

/**
 * The simulated CI's uploads: each run's JUnit results go through FlakyTestService.upload, as the
 * CLI's would, and what the service tells the queue becomes one fact for the next reconcile — so the
 * queue knows only what the detector learnt from the uploads so far.
 */
export class SimTestUploads {
  private readonly pending: TestResultsEvent[] = [];
  private readonly told: { sha: string; failedTests: FailedTest[] }[] = [];
  private readonly service: FlakyTestService;

  constructor(
    sandbox: SandboxGitHost,
    store: Store,
    private readonly clock: Clock,
  ) {
    sandbox.onTestResults((e) => this.pending.push(e));
    this.service = new FlakyTestService({
      store,
      clock,
      onTestResults: async (_repo, sha, failedTests) => {
        this.told.push({ sha, failedTests });
      },
    });
  }

  /** Uploads what the CI reported since the last call; the fact recording it, or null. */
  async flush(): Promise<Fact | null> {
    for (const e of this.pending.splice(0)) {
      await this.service.upload(SIM_ORG, { repo: e.repo, commitSha: e.sha, branch: e.branch, jobName: 'sim-ci', junitXml: [e.junitXml] });
    }
    if (this.told.length === 0) return null;
    const told = this.told.splice(0);
    const now = this.clock.now();
    return (q) => told.reduce((acc, t) => recordTestResults(acc, t.sha, t.failedTests, now), q);
  }
}

import type { FailedTest } from '../../src/domain/run.js';
import type { GitHost } from '../../src/githost/githost.js';
import { harness, repo, type Harness } from './harness.js';

/**
 * A CI quick enough to upload its test results before the engine has recorded the run as created:
 * the results are kept for the commit and recorded with the run, not lost.
 */

const FLAKY: FailedTest = { testCaseId: 'tc-flaky', name: 'checkout retries the payment', knownFlaky: true, quarantined: true };

let h: Harness;

async function setUp(uploadEarly: boolean) {
  h = await harness({
    settings: { concurrency: 1, flakeRetries: 1 },
    wrapGitHost: (g: GitHost) =>
      Object.assign(Object.create(g) as GitHost, {
        async createTestBranch(...args: Parameters<GitHost['createTestBranch']>) {
          const result = await g.createTestBranch(...args);
          // The upload reaches the engine before createTestBranch has returned to it.
          if (uploadEarly && result.ok) await h.engine.recordTestResults(repo, result.sha, [FLAKY]);
          return result;
        },
      }),
  });
}

test('results uploaded before the run is recorded are recorded with it: a failure only on a known flaky test is rerun as flaky_tests', async () => {
  await setUp(true);
  const pr = await h.submit({ bad: true });
  await h.settle();
  const run = (await h.doc()).runs.find((r) => r.prs.some((p) => p.prNumber === pr))!;
  expect(run.testResults?.failedTests).toEqual([FLAKY]);

  await h.advance(11);
  const entry = await h.entry(pr);
  expect(entry.history.map((t) => t.reason.code)).toContain('flaky_tests');
});

test('without them, the same failure is an ordinary flakeRetries rerun', async () => {
  await setUp(false);
  const pr = await h.submit({ bad: true });
  await h.advance(11);
  const codes = (await h.entry(pr)).history.map((t) => t.reason.code);
  expect(codes).not.toContain('flaky_tests');
  expect((await h.entry(pr)).retriesUsed).toBe(1);
});

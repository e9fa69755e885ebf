import { MAX_FAILED_TESTS_KEPT, type FailedTest } from '../../src/domain/run.js';
import { recordTestResults } from '../../src/planner/changes/facts.js';
import type { Store } from '../../src/store/store.js';
import { aQueue, aRun, at } from './fixtures.js';

/** Limits every store shares, so that what one stores another can too (MongoDB's 16 MiB documents). */
export function boundsContract(current: () => Store): void {
  describe('limits every store shares', () => {
    it(`keeps the first ${MAX_FAILED_TESTS_KEPT} failed tests of a run and a count of the rest, those not known flaky first, and stores the run`, async () => {
      const store = current();
      const run = aRun('q', [1], { status: 'failed', testBranchSha: 'test-sha' });
      const queue = aQueue({ version: 1, runs: [run] });
      await store.queues.insertQueue(queue);
      // About 27,900 failures with 200-character names were over 8 MiB: MongoDB refused the run, SQLite stored it.
      const failed = (from: number, count: number, knownFlaky: boolean): FailedTest[] =>
        Array.from({ length: count }, (_, i) => ({ testCaseId: `case-${from + i}`, name: `${from + i} ${'n'.repeat(200)}`, knownFlaky, quarantined: false }));
      const first = recordTestResults(queue, 'test-sha', failed(0, 20_000, true), new Date(at(40)));
      const second = recordTestResults(first, 'test-sha', [...failed(20_000, 9_999, true), ...failed(29_999, 1, false)], new Date(at(41)));

      const results = second.runs[0]!.testResults!;
      expect(results.failedTests).toHaveLength(MAX_FAILED_TESTS_KEPT);
      expect(results.moreFailedTests).toBe(30_000 - MAX_FAILED_TESTS_KEPT);
      expect(results.failedTests[0]).toMatchObject({ testCaseId: 'case-29999', knownFlaky: false });
      expect(Buffer.byteLength(JSON.stringify(second.runs[0]))).toBeLessThan(1024 * 1024);

      expect(await store.queues.commitQueue({ ...second, version: 2 }, 1)).toBe(true);
      expect((await store.queues.getQueueById(queue.id))?.runs[0]?.testResults).toEqual(results);
    });
  });
}

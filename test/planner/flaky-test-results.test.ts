import type { FailedTest } from '../../src/domain/run.js';
import { nextWakeUp } from '../../src/planner/index.js';
import { Harness } from './harness.js';

/** flaky-tests.md, "The queue and flakes": a failed run's test results tell a flake from a failure. */

const flaky = (name: string): FailedTest => ({ testCaseId: `id-${name}`, name, knownFlaky: true, quarantined: false });
const quarantined = (name: string): FailedTest => ({ testCaseId: `id-${name}`, name, knownFlaky: false, quarantined: true });
const real = (name: string): FailedTest => ({ testCaseId: `id-${name}`, name, knownFlaky: false, quarantined: false });

function codes(h: Harness, pr: number): string[] {
  return h.entry(pr).history.map((t) => t.reason.code);
}

/** The run of the PR fails with these tests failed (results uploaded before the failing status). */
function failWith(h: Harness, pr: number, tests: FailedTest[]): void {
  h.testResults(h.runOf(pr), tests);
  h.fail(pr);
}

describe('a failure whose failed tests are all known flaky or quarantined is rerun at once', () => {
  test.each([
    ['known flaky', [flaky('a')]],
    ['quarantined', [quarantined('q')]],
    ['flaky and quarantined', [flaky('a'), quarantined('q')]],
  ])('%s: rerun with reason flaky_tests, outside flakeRetries, and it merges only once a run passes', (_label, tests) => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    failWith(h, 1, tests);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.entry(1).reason?.code).toBe('flaky_tests');
    expect(h.entry(1).reason?.message).toContain(tests[0]!.name);
    expect(h.entry(1).retriesUsed).toBe(0);
    expect(h.runOf(1).attempt).toBe(1);
    expect(h.merges).toEqual([]);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('up to flakyTestRetries times; then the flakeRetries rule of queue-semantics.md applies', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1, flakyTestRetries: 2 });
    h.submit(1);
    failWith(h, 1, [flaky('a')]);
    failWith(h, 1, [flaky('a')]);
    expect(codes(h, 1).filter((c) => c === 'flaky_tests')).toHaveLength(2);
    failWith(h, 1, [flaky('a')]);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.entry(1).reason?.code).toBe('test_started');
    expect(h.entry(1).retriesUsed).toBe(1);
    failWith(h, 1, [flaky('a')]);
    expect(h.state(1)).toBe('FAILED');
    expect(h.q.runs.filter((r) => r.status === 'failed')).toHaveLength(4);
  });

  test('flakyTestRetries 0: known flaky failures are retried as any failure', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1, flakyTestRetries: 0 });
    h.submit(1);
    failWith(h, 1, [flaky('a')]);
    expect(codes(h, 1)).not.toContain('flaky_tests');
    expect(h.entry(1).retriesUsed).toBe(1);
  });
});

describe('a failure with a failed test not known flaky is real', () => {
  test('with skipRetryOnRealFailure (the default) it fails after one run, naming the test', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    h.pass(1);
    failWith(h, 2, [real('breaks'), flaky('a')]);
    expect(h.state(2)).toBe('FAILED');
    expect(h.entry(2).reason?.code).toBe('tests_failed');
    expect(h.entry(2).reason?.message).toContain('breaks');
    expect(h.q.runs.filter((r) => h.prsOf(r).includes(2))).toHaveLength(1);
  });

  test('without it the flakeRetries rerun is spent as before', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1, skipRetryOnRealFailure: false });
    h.submit(1);
    failWith(h, 1, [real('breaks')]);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.entry(1).retriesUsed).toBe(1);
  });

  test('while a unit ahead in its run is undecided it is not blamed yet; it is re-admitted when that one fails', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    failWith(h, 2, [real('breaks')]);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    failWith(h, 1, [real('other')]);
    expect(h.state(1)).toBe('FAILED');
    expect(h.state(2)).not.toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
  });
});

describe('no results: the rules of queue-semantics.md', () => {
  test('a queue whose CI never uploaded results decides at once, as before', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    h.fail(1);
    expect(h.entry(1).reason?.code).toBe('test_started');
    expect(h.entry(1).retriesUsed).toBe(1);
  });

  test('a run failing with results that name no failed test is retried as before', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    failWith(h, 1, []);
    expect(h.entry(1).retriesUsed).toBe(1);
  });

  test('once results were seen, a failed run waits testResultsWaitSeconds for them, and never longer', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1, testResultsWaitSeconds: 60 });
    h.submit(1);
    h.submit(2);
    h.testResults(h.runOf(1), []);
    h.fail(2);
    const failedRun = h.runOf(2);
    expect(h.liveRuns().filter((r) => h.prsOf(r).includes(2) && r.id !== failedRun.id)).toEqual([]);
    expect(nextWakeUp({ queue: h.q, targets: h.targets }, h.now)).toEqual(new Date(h.now.getTime() + 60_000));
    h.advanceSeconds(59);
    expect(h.runOf(2).id).toBe(failedRun.id);
    h.advanceSeconds(1);
    expect(h.runOf(2).id).not.toBe(failedRun.id);
    expect(h.entry(2).retriesUsed).toBe(1);
  });

  test('results that arrive within the wait decide', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1, testResultsWaitSeconds: 60 });
    h.submit(1);
    h.submit(2);
    h.testResults(h.runOf(1), []);
    h.fail(2);
    h.advanceSeconds(30);
    h.testResults(h.q.runs.find((r) => r.status === 'failed')!, [flaky('a')]);
    expect(h.entry(2).reason?.code).toBe('flaky_tests');
  });
});

describe('batches and lanes', () => {
  test('a batch whose failure is only known flaky tests is rerun whole, not bisected', () => {
    const h = new Harness({ batch: true, batchingMinSize: 3, concurrency: 3, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    failWith(h, 1, [flaky('a')]);
    expect(h.q.runs.filter((r) => r.kind === 'bisection')).toEqual([]);
    expect(h.prsOf(h.runOf(1))).toEqual([1, 2, 3]);
    expect(codes(h, 3)).toContain('flaky_tests');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
  });

  test('a batch with a real failure is bisected as before', () => {
    const h = new Harness({ batch: true, batchingMinSize: 3, concurrency: 3, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    failWith(h, 1, [real('breaks')]);
    expect(h.q.runs.filter((r) => r.kind === 'bisection').length).toBeGreaterThan(0);
  });

  test('parallel mode: a lane whose run fails only on a flaky test reruns it with the same content', () => {
    const h = new Harness({ mode: 'parallel', concurrency: 10, canOptimisticallyMerge: true, flakeRetries: 1 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    failWith(h, 2, [flaky('a')]);
    expect(h.entry(2).reason?.code).toBe('flaky_tests');
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    h.pass(1);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
  });
});

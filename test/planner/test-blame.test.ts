import type { FailedTest } from '../../src/domain/run.js';
import { Harness } from './harness.js';

/**
 * Rule 4, blame by test (docs/queue-rules.md): in single mode, a test not known flaky that failed in
 * several runs is blamed on the one unproven PR that all of them hold and no run without the failure
 * cleared — before that PR's own run ends.
 */

const real = (name: string): FailedTest => ({ testCaseId: `id-${name}`, name, knownFlaky: false, quarantined: false });
const flaky = (name: string): FailedTest => ({ testCaseId: `id-${name}`, name, knownFlaky: true, quarantined: false });

function failWith(h: Harness, pr: number, tests: FailedTest[]): void {
  h.testResults(h.runOf(pr), tests);
  h.fail(pr);
}

function merged(h: Harness): number[] {
  return h.merges.map((m) => m.prNumber);
}

/** PRs 1-4 queued in single mode, each run holding everything ahead of it (rule 1). */
function queueOfFour(): Harness {
  const h = new Harness({ mode: 'single', concurrency: 10, flakeRetries: 1, canOptimisticallyMerge: true, pendingFailureDepth: 0 });
  for (const pr of [1, 2, 3, 4]) h.submit(pr);
  expect(h.prsOf(h.runOf(4))).toEqual([1, 2, 3, 4]);
  return h;
}

describe('rule 4, blame by test', () => {
  test('the PR that every run failing the test holds is left out while its own run still goes', () => {
    const h = queueOfFour();
    h.pass(1);
    expect(merged(h)).toEqual([1]);
    const ownRun = h.runOf(2);
    // #2 breaks "checkout": the runs of #3 and #4 fail on it first.
    failWith(h, 3, [real('checkout')]);
    expect(h.state(3)).toBe('PENDING_FAILURE');
    expect(h.prsOf(h.runOf(4))).toEqual([2, 4]);
    expect(h.state(2)).toBe('TESTING');
    failWith(h, 4, [real('checkout')]);

    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.entry(2).reason?.code).toBe('failure_confirmed');
    expect(h.entry(2).reason?.message).toContain('checkout');
    expect(h.runOf(2).id).toBe(ownRun.id);
    expect(h.runOf(2).status).toBe('pending');
    expect(h.prsOf(h.runOf(4))).toEqual([4]);

    // Blame only leaves it out: it fails on its own run, and the PRs behind it merge without it.
    failWith(h, 2, [real('checkout')]);
    expect(h.state(2)).toBe('FAILED');
    h.pass(4);
    expect(merged(h)).toEqual([1, 4]);
    // #3, a victim left out when its run failed, is rerun without #2 and re-enters at the tail.
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    h.pass(3);
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('retry_passed');
    h.pass(3);
    expect(merged(h)).toEqual([1, 4, 3]);
  });

  test('nobody is blamed while two unproven PRs are held by every failing run', () => {
    const h = queueOfFour();
    failWith(h, 3, [real('checkout')]);
    failWith(h, 4, [real('checkout')]);
    // #1 and #2 are both in the runs of #3 and #4, and neither has a result of its own yet.
    expect(h.state(1)).toBe('TESTING');
    expect(h.state(2)).toBe('TESTING');
  });

  test('a run that ran the test without failing it clears what it held', () => {
    const h = queueOfFour();
    failWith(h, 3, [real('checkout')]);
    failWith(h, 4, [real('checkout')]);
    // The run of #1 fails on a known flaky test only: "checkout" passed with #1.
    failWith(h, 1, [flaky('network')]);
    const blamed = h.entry(2).history.find((t) => t.reason.code === 'failure_confirmed');
    expect(blamed?.reason.message).toContain('checkout');
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.entry(1).reason?.code).toBe('flaky_tests');
  });

  test('a known flaky test is never a reason to blame', () => {
    const h = queueOfFour();
    h.pass(1);
    failWith(h, 3, [flaky('network')]);
    failWith(h, 4, [flaky('network')]);
    expect(h.state(2)).toBe('TESTING');
  });

  test('a run without the partner of a logical conflict does not clear a PR', () => {
    const h = queueOfFour();
    h.pass(1);
    // "2 with 3" fails in runs that hold both #2 and #3.
    failWith(h, 4, [real('2 with 3')]);
    // #2 flakes and is left out, so #3 is rebuilt alone, and that run flakes too: it held #3
    // without #2, so it says nothing about "2 with 3", and #4 is not blamed for it.
    failWith(h, 2, [flaky('network')]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    failWith(h, 3, [flaky('network')]);
    expect(h.entry(4).history.map((t) => t.reason.code)).not.toContain('failure_confirmed');
  });

  test('a blamed PR whose own run passes re-enters at the tail and merges, blamed only once', () => {
    const h = queueOfFour();
    failWith(h, 3, [real('checkout')]);
    failWith(h, 4, [real('checkout')]);
    // #1's run fails on a flaky test only, so "checkout" passed with #1; then #1 is cancelled.
    failWith(h, 1, [flaky('network')]);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('failure_confirmed');
    h.cancel(1);
    // "checkout" was a flaky test not yet known as one: #2 passes on its own.
    h.pass(2);
    // The old runs no longer blame it: it re-enters at the tail and its passing run merges it.
    expect(h.entry(2).history.map((t) => t.reason.code).filter((c) => c === 'failure_confirmed')).toHaveLength(1);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.state(2)).toBe('MERGED');
  });

  test('parallel mode does not blame by test (its lanes keep their own suspects)', () => {
    const h = new Harness({ mode: 'parallel', concurrency: 10, flakeRetries: 1, canOptimisticallyMerge: true });
    for (const pr of [1, 2, 3, 4]) h.submit(pr, { targets: ['//a'] });
    h.pass(1);
    failWith(h, 3, [real('checkout')]);
    failWith(h, 4, [real('checkout')]);
    expect(h.state(2)).toBe('TESTING');
  });
});

import { Harness } from './harness.js';

describe('rule 7: testingTimeoutMinutes', () => {
  test('a run with no verdict by then fails with test_timeout', () => {
    const h = new Harness({ testingTimeoutMinutes: 30, flakeRetries: 0 });
    h.submit(1);
    h.advance(29);
    expect(h.state(1)).toBe('TESTING');
    h.advance(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.entry(1).reason?.code).toBe('test_timeout');
    expect(h.q.runs[0]!.status).toBe('timed_out');
  });

  test('a timeout counts as a failure that is retried like any other', () => {
    const h = new Harness({ testingTimeoutMinutes: 30, flakeRetries: 1 });
    h.submit(1);
    h.advance(30);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.runOf(1).attempt).toBe(1);
    // The rerun passes: it re-enters at the tail, which is the head of this empty queue, so the
    // rerun tested exactly what lands and merges it.
    h.pass(1);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.state(1)).toBe('MERGED');
  });
});

describe('rule 8: removing a unit restarts the runs that contain it, never moving anyone', () => {
  test('cancelling a PR restarts the units behind it without it', () => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.cancel(2);
    expect(h.state(2)).toBe('CANCELLED');
    expect(h.order()).toEqual([1, 3]);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
    expect(h.entry(3).history.map((t) => `${t.state}:${t.reason.code}`)).toEqual([
      'NOT_READY:submitted',
      'PENDING:ready',
      'TESTING:test_started',
      'PENDING:ahead_cancelled',
      'TESTING:test_started',
    ]);
    // 1 was not in a run with 2: untouched.
    expect(h.entry(1).history).toHaveLength(3);
    expect(h.q.runs.filter((r) => r.status === 'cancelled').map((r) => h.prsOf(r))).toEqual([[1, 2], [1, 2, 3]]);
  });

  test('a passed result that contains a removed PR is not used to merge', () => {
    const h = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.pass(3); // would prove 1, 2, 3 ... but it merges them at once
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);

    const g = new Harness({ concurrency: 3 });
    g.submit(1);
    g.submit(2);
    g.submit(3);
    g.pass(3);
    g.cancel(2);
    expect(g.state(3)).toBe('TESTING');
    expect(g.prsOf(g.runOf(3))).toEqual([1, 3]);
    g.pass(1);
    expect(g.merges.map((m) => m.prNumber)).toEqual([1]);
  });
});

describe('rule 9: a merge the git host refuses', () => {
  test('fails that PR and restarts the units behind it', () => {
    const h = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.refuseMerge.set(2, 'merge_conflict');
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('FAILED');
    expect(h.entry(2).reason?.code).toBe('merge_conflict');
    expect(h.state(3)).toBe('TESTING');
    expect(h.entry(3).mergeIntent).toBeNull();
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('ahead_failed');
  });

  test('pr_updated is the reason when the PR changed under the merge', () => {
    const h = new Harness();
    h.submit(1);
    h.refuseMerge.set(1, 'pr_updated');
    h.pass(1);
    expect(h.entry(1).state).toBe('FAILED');
    expect(h.entry(1).reason?.code).toBe('pr_updated');
  });
});

describe('a test branch that cannot be built', () => {
  test('fails the conflicting PR with merge_conflict, without flake reruns', () => {
    const h = new Harness({ flakeRetries: 2 });
    h.conflicts.add(1);
    h.submit(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.entry(1).reason?.code).toBe('merge_conflict');
    expect(h.q.runs).toHaveLength(1);
  });

  test('a conflict with a PR ahead waits for that PR, then retests without it', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 0 });
    h.submit(1);
    h.conflicts.add(1);
    h.submit(2);
    expect(h.state(1)).toBe('TESTING');
    expect(h.state(2)).toBe('PENDING_FAILURE'); // its run [1,2] could not be built because of 1
    h.fail(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    h.pass(2);
    expect(h.state(2)).toBe('MERGED');
  });
});

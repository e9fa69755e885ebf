import { Harness } from './harness.js';

describe('rule 12: restartTestsOnPullRequest', () => {
  test('reruns the unit with the same content; nothing else restarts and nothing moves', () => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    const before = h.runOf(2);
    const others = [h.runOf(1).id, h.runOf(3).id];
    h.restart(2);
    const after = h.runOf(2);
    expect(after.id).not.toBe(before.id);
    expect(h.prsOf(after)).toEqual([1, 2]);
    expect(h.q.runs.find((r) => r.id === before.id)!.cancelReason).toBe('restarted_by_user');
    expect([h.runOf(1).id, h.runOf(3).id]).toEqual(others);
    expect(h.order()).toEqual([1, 2, 3]);
    expect(h.entry(2).history.map((t) => t.reason.code)).toEqual(['submitted', 'ready', 'test_started', 'restarted_by_user', 'test_started']);
  });

  test('a passed result is retested and can no longer merge the PR', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.pass(2);
    h.restart(2);
    expect(h.state(2)).toBe('TESTING');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
  });

  test('a suspect is rerun beside the queue at once and stays out of the runs behind', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 0, pendingFailureDepth: 1 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2); // suspect while 1 is unresolved; no retries
    const behind = h.runOf(3).id;
    h.restart(2);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.runOf(2).status).toBe('pending');
    expect(h.runOf(3).id).toBe(behind);
  });
});

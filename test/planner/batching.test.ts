import { nextWakeUp } from '../../src/planner/index.js';
import { minutesAfter, T0 } from './builders.js';
import { Harness } from './harness.js';

/** queue-semantics.md, "Batching" rules 1-2, through plan(). */

function codes(h: Harness, pr: number): string[] {
  return h.entry(pr).history.map((t) => t.reason.code);
}

describe('batching rule 1: batch formation', () => {
  test('ready entries wait untested until the batch is full, then one run tests them together', () => {
    const h = new Harness({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 10 });
    h.submit(1);
    h.submit(2);
    expect([h.state(1), h.state(2)]).toEqual(['PENDING', 'PENDING']);
    expect(h.q.runs).toEqual([]);
    h.submit(3);
    expect(h.prsOf(h.runOf(1))).toEqual([1, 2, 3]);
    expect(h.runOf(3).id).toBe(h.runOf(1).id);
    expect(h.q.units.map((u) => u.entryIds.length)).toEqual([3]);
    expect(codes(h, 2)).toEqual(['submitted', 'ready', 'batched', 'test_started']);
    expect(h.entry(2).history[2]!.reason.message).toContain('#1, #2, #3');
  });

  test('a partial batch starts when its oldest entry has waited batchingMaxWaitTimeMinutes', () => {
    const h = new Harness({ batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 10 });
    h.submit(1);
    h.advance(4);
    h.submit(2);
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)).toEqual(minutesAfter(T0, 10));
    h.advance(5);
    expect(h.q.runs).toEqual([]);
    h.advance(1);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.entry(1).history.find((t) => t.reason.code === 'batched')!.reason.message).toContain('waited');
  });

  test('a noBatch entry is a batch of its own and the partial group ahead of it starts at once', () => {
    const h = new Harness({ batch: true, batchingMinSize: 3, concurrency: 3 });
    h.submit(1);
    h.submit(2, { noBatch: true });
    h.submit(3);
    expect(h.prsOf(h.runOf(1))).toEqual([1]);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.state(3)).toBe('PENDING');
    expect(h.order()).toEqual([1, 2, 3]);
  });

  test('batches are units of the speculation chain, each run built on the batches ahead', () => {
    const h = new Harness({ batch: true, batchingMinSize: 2, concurrency: 2 });
    for (const pr of [1, 2, 3, 4, 5, 6]) h.submit(pr);
    expect(h.prsOf(h.runOf(1))).toEqual([1, 2]);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 2, 3, 4]);
    // Formed, waiting for a slot.
    expect([h.state(5), h.state(6)]).toEqual(['PENDING', 'PENDING']);
    expect(h.q.units.map((u) => u.entryIds.length)).toEqual([2, 2, 2]);
    h.pass(1);
    expect(h.prsOf(h.runOf(5))).toEqual([3, 4, 5, 6]);
  });

  test('nothing forms while the queue is paused; the batch forms when it runs again', () => {
    const h = new Harness({ batch: true, batchingMinSize: 2 });
    h.setState('paused');
    h.submit(1);
    h.submit(2);
    expect(codes(h, 1)).not.toContain('batched');
    h.setState('running');
    expect(h.prsOf(h.runOf(1))).toEqual([1, 2]);
  });

  test('with a batchingMinSize of 1 every entry is tested at once, as without batching', () => {
    const h = new Harness({ batch: true, batchingMinSize: 1 });
    h.submit(1);
    expect(h.state(1)).toBe('TESTING');
    expect(codes(h, 1)).not.toContain('batched');
  });
});

describe('batching rule 2: a passing batch merges its PRs one by one, in order', () => {
  test('each PR of the batch merges separately, proven by the batch run', () => {
    const h = new Harness({ batch: true, batchingMinSize: 3 });
    for (const pr of [1, 2, 3]) h.submit(pr);
    const run = h.runOf(1);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(h.merges.every((m) => m.runId === run.id)).toBe(true);
    expect([1, 2, 3].map((pr) => h.state(pr))).toEqual(['MERGED', 'MERGED', 'MERGED']);
  });

  test('a batch behind waits for the batch ahead to merge first', () => {
    const h = new Harness({ batch: true, batchingMinSize: 2, concurrency: 2 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.pass(3);
    expect(h.merges).toEqual([]);
    expect(h.state(4)).toBe('TESTS_PASSED');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3, 4]);
  });
});

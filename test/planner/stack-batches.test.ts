import { Harness } from './harness.js';
import { playCi, submitStack } from './stack-harness.js';

/**
 * Batches keep a stack whole (docs/stacks.md, "One unit"): with batching on, a stack is batched with
 * other PRs as one piece; a batch may grow past `batchingMinSize` by half (4 -> 6) to take it in; a
 * group it would make larger starts without it; a larger stack is a batch of its own.
 */
type Item = number | number[];

function batching(): Harness {
  return new Harness({ concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 10, bisectionConcurrency: 1, flakeRetries: 0 });
}

function queueUp(h: Harness, items: Item[]): void {
  items.forEach((item, i) => (typeof item === 'number' ? h.submit(item) : submitStack(h, item, { id: `stack-${i}` })));
}

describe('batches keep a stack whole (batchingMinSize 4)', () => {
  const cases: [string, Item[], number[][]][] = [
    ['two PRs and a stack of 3: one batch of 5', [1, 2, [3, 4, 5]], [[1, 2, 3, 4, 5]]],
    ['two PRs and a stack of 4: one batch of 6, half again its size', [1, 2, [3, 4, 5, 6]], [[1, 2, 3, 4, 5, 6]]],
    ['three PRs and a stack of 4 (7 > 6): the three start without it, the stack is a full batch', [1, 2, 3, [4, 5, 6, 7]], [[1, 2, 3], [1, 2, 3, 4, 5, 6, 7]]],
    ['a PR and a stack of 7 (> 6): the PR starts alone, the stack is a batch of its own', [1, [2, 3, 4, 5, 6, 7, 8]], [[1], [1, 2, 3, 4, 5, 6, 7, 8]]],
    ['two stacks of 2: one batch of 4', [[1, 2], [3, 4]], [[1, 2, 3, 4]]],
  ];
  test.each(cases)('%s', (_name, items, runs) => {
    const h = batching();
    queueUp(h, items);
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual(runs);
    playCi(h, []);
    const all = items.flat();
    expect(h.merges.map((m) => m.prNumber)).toEqual(all);
    // One CI run per batch: every member of a stack merged on the same run.
    for (const item of items.filter((i): i is number[] => Array.isArray(i))) {
      expect(new Set(h.merges.filter((m) => item.includes(m.prNumber)).map((m) => m.runId)).size).toBe(1);
    }
  });

  test('a batch holding a stack and a PR, culprit layer 2: layer 1 lands, 2 fails, 3 leaves naming it, the PR is batched again and lands', () => {
    const h = batching();
    queueUp(h, [[1, 2, 3], 4]);
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1, 2, 3, 4]]);
    playCi(h, [2]);
    h.advance(10);
    playCi(h, [2]);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 4]);
    expect(h.entry(2).reason?.code).toBe('tests_failed');
    expect(h.entry(3).reason).toEqual({ code: 'stack_member_failed', message: expect.stringContaining('#2') as string });
    expect(h.entry(4).history.map((t) => t.reason.code)).toContain('batch_split');
  });

  test('a batch whose first PR is the culprit: the stack behind it goes back as one unit and lands with one run', () => {
    const h = batching();
    queueUp(h, [1, [2, 3, 4]]);
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1, 2, 3, 4]]);
    playCi(h, [1]);
    h.advance(10);
    playCi(h, [1]);
    expect(h.state(1)).toBe('FAILED');
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3, 4]);
    expect(new Set(h.merges.map((m) => m.runId)).size).toBe(1);
  });
});

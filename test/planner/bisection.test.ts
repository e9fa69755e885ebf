import type { QueueSettings } from '../../src/domain/settings.js';
import type { TestRun } from '../../src/domain/run.js';
import { Harness } from './harness.js';

/** queue-semantics.md, "Batching" rules 3-4, through plan(). */

const BATCH4: Partial<QueueSettings> = { batch: true, batchingMinSize: 4, flakeRetries: 0 };

function bisectionRuns(h: Harness, live = true): TestRun[] {
  return h.q.runs.filter((r) => r.kind === 'bisection' && (!live || r.status === 'pending' || r.status === 'creating'));
}

function probe(h: Harness, prs: number[]): TestRun {
  const run = bisectionRuns(h).find((r) => h.prsOf(r).join() === prs.join());
  if (!run) throw new Error(`no bisection run of ${prs.join()}: ${bisectionRuns(h).map((r) => h.prsOf(r).join()).join(' | ')}`);
  return run;
}

/** One batch of `prs`; `batchingMaxWaitTimeMinutes` applies once it formed (to the entries split off). */
function batchOf(prs: number[], settings: Partial<QueueSettings> = {}): Harness {
  const { batchingMaxWaitTimeMinutes, ...rest } = settings;
  const h = new Harness({ ...BATCH4, batchingMinSize: prs.length, ...rest });
  for (const pr of prs) h.submit(pr);
  if (batchingMaxWaitTimeMinutes !== undefined) h.update({ batchingMaxWaitTimeMinutes });
  return h;
}

describe('batching rule 3: a failing batch is bisected over its prefixes', () => {
  test('c prefix lengths are tested at once; entries before the first failing prefix merge, the culprit fails, the rest are batched again', () => {
    const h = batchOf([1, 2, 3, 4], { bisectionConcurrency: 3, batchingMaxWaitTimeMinutes: 0 });
    h.fail(1);
    expect([1, 2, 3, 4].map((pr) => h.state(pr))).toEqual(['PENDING_FAILURE', 'PENDING_FAILURE', 'PENDING_FAILURE', 'PENDING_FAILURE']);
    expect(h.entry(1).reason?.code).toBe('bisection_started');
    expect(bisectionRuns(h).map((r) => h.prsOf(r))).toEqual([[1], [1, 2], [1, 2, 3]]);
    h.report(probe(h, [1]), 'success');
    h.report(probe(h, [1, 2]), 'success');
    expect(h.merges).toEqual([]);
    h.report(probe(h, [1, 2, 3]), 'failure');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('bisection_cleared');
    expect(h.state(3)).toBe('FAILED');
    expect(h.entry(3).reason?.code).toBe('tests_failed');
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('bisection_culprit');
    expect(h.entry(4).history.map((t) => t.reason.code)).toContain('batch_split');
    // #4 is batched again (its wait is long over) and tested on what landed.
    expect(h.state(4)).toBe('TESTING');
    expect(h.prsOf(h.runOf(4))).toEqual([4]);
    h.pass(4);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 4]);
  });

  test('the merged prefix was proven by the passing prefix run on exactly what landed', () => {
    const h = batchOf([1, 2, 3, 4], { bisectionConcurrency: 3 });
    h.fail(1);
    const two = probe(h, [1, 2]);
    h.report(two, 'success');
    h.report(probe(h, [1, 2, 3]), 'failure');
    expect(h.merges.map((m) => [m.prNumber, m.runId])).toEqual([
      [1, two.id],
      [2, two.id],
    ]);
  });

  test('at most bisectionConcurrency bisection runs are in flight; with one, a binary search', () => {
    const h = batchOf([1, 2, 3, 4, 5, 6, 7, 8], { bisectionConcurrency: 1 });
    h.fail(1);
    const seen: number[][] = [];
    const bad = 6;
    while (bisectionRuns(h).length > 0) {
      expect(bisectionRuns(h)).toHaveLength(1);
      const run = bisectionRuns(h)[0]!;
      seen.push(h.prsOf(run));
      h.report(run, h.prsOf(run).includes(bad) ? 'failure' : 'success');
    }
    expect(seen.length).toBeLessThanOrEqual(4);
    expect(h.state(6)).toBe('FAILED');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3, 4, 5]);
  });

  test('a culprit at the first position merges nothing and sends the others back to be batched', () => {
    const h = batchOf([1, 2, 3], { bisectionConcurrency: 2, batchingMaxWaitTimeMinutes: 0 });
    h.fail(1);
    h.report(probe(h, [1]), 'failure');
    expect(h.state(1)).toBe('FAILED');
    expect(h.merges).toEqual([]);
    expect(h.prsOf(h.runOf(2))).toEqual([2, 3]);
    expect(h.order()).toEqual([2, 3]);
  });

  test('the culprit gets its flake reruns as a single unit; a passing rerun sends it to the tail', () => {
    const h = batchOf([1, 2, 3], { bisectionConcurrency: 2, flakeRetries: 1, batchingMaxWaitTimeMinutes: 0 });
    h.fail(1);
    h.report(probe(h, [1]), 'success');
    h.report(probe(h, [1, 2]), 'failure');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    const rerun = h.runOf(2);
    expect(rerun.attempt).toBe(1);
    expect(h.prsOf(rerun).slice(-1)).toEqual([2]);
    h.report(rerun, 'success');
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.order()).toEqual([3, 2]);
  });

  test('the culprit whose reruns fail too is FAILED with the failing checks named', () => {
    const h = batchOf([1, 2], { bisectionConcurrency: 2, flakeRetries: 1 });
    h.fail(1);
    h.report(probe(h, [1]), 'success');
    // Without skipping, the whole batch is retested in bisection too.
    h.report(probe(h, [1, 2]), 'failure');
    h.fail(2);
    expect(h.state(2)).toBe('FAILED');
    expect(h.entry(2).reason).toEqual({ code: 'tests_failed', message: 'failing checks: ci' });
  });

  test('a batch whose every prefix passes when retested was a flake: all of it merges', () => {
    const h = batchOf([1, 2, 3], { bisectionConcurrency: 3 });
    h.fail(1);
    expect(bisectionRuns(h).map((r) => h.prsOf(r))).toEqual([[1], [1, 2], [1, 2, 3]]);
    for (const run of bisectionRuns(h)) h.report(run, 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
  });

  test('single mode: a batch behind unresolved units is bisected at once on top of them; the split waits for them', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(3);
    expect(h.entry(3).reason?.code).toBe('bisection_started');
    // Speculation as for its own run: its prefixes are tested on the batch ahead of it.
    expect(bisectionRuns(h).map((r) => h.prsOf(r))).toEqual([
      [1, 2, 3],
      [1, 2, 3, 4],
    ]);
    const longer = probe(h, [1, 2, 3, 4]);
    h.report(probe(h, [1, 2, 3]), 'failure');
    expect(h.q.runs.find((r) => r.id === longer.id)!.status).toBe('cancelled');
    // #1 and #2 could still explain that failure: nothing is named while they are unresolved.
    expect([h.state(3), h.state(4)]).toEqual(['PENDING_FAILURE', 'PENDING_FAILURE']);
    expect(h.entry(3).history.map((t) => t.reason.code)).not.toContain('bisection_culprit');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.state(3)).toBe('FAILED');
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('bisection_culprit');
    expect(h.entry(4).history.map((t) => t.reason.code)).toContain('batch_split');
  });

  test('single mode: a batch is not bisected while a suspect ahead of it in its run explains its failure (rule 5)', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(1);
    h.fail(3);
    expect(h.state(3)).toBe('PENDING_FAILURE');
    expect(h.entry(1).reason?.code).toBe('bisection_started');
    expect(bisectionRuns(h).every((r) => !h.prsOf(r).includes(3))).toBe(true);
  });

  test('single mode: units within pendingFailureDepth keep a failed batch until it is split and start no runs meanwhile', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 2 });
    for (const pr of [1, 2, 3, 4, 5, 6]) h.submit(pr);
    const behind = h.runOf(3);
    expect(h.state(5)).toBe('PENDING');
    h.fail(1);
    // The run of #3-#4 still contains the batch: it is its flake evidence, not cancelled.
    expect(h.runOf(3).id).toBe(behind.id);
    expect(h.liveRuns().map((r) => r.id)).toContain(behind.id);
    // #5-#6 would have to be tested with the failed batch in it or without its good PRs: they wait.
    expect(h.state(5)).toBe('PENDING');
    expect(h.liveRuns().some((r) => h.prsOf(r).includes(5))).toBe(false);
    h.report(probe(h, [1]), 'success');
    h.report(probe(h, [1, 2]), 'failure');
    // Split: #1 merges, #2 is named (confirmed, so no longer kept), the others go on without it.
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('FAILED');
    expect(h.prsOf(h.runOf(3))).toEqual([3, 4]);
    expect(h.prsOf(h.runOf(5))).toEqual([3, 4, 5, 6]);
  });

  test('single mode: a pass of a unit behind a failed batch still being bisected merges all of it (the failure was a flake)', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 2 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(1);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3, 4]);
    expect(bisectionRuns(h)).toEqual([]);
  });

  test('beyond pendingFailureDepth, units behind a failed batch go on without it at once', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 0 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(1);
    expect(h.prsOf(h.runOf(3))).toEqual([3, 4]);
  });

  test('single mode: a failed batch stays in the runs behind it even once further failures confirm it, until it is split', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 2 });
    for (const pr of [1, 2]) h.submit(pr);
    h.submit(3, { noBatch: true });
    h.submit(4, { noBatch: true });
    const behind = h.runOf(4);
    h.fail(1);
    h.fail(3);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('failure_confirmed');
    expect(h.runOf(4).id).toBe(behind.id);
    expect(h.prsOf(h.runOf(4))).toEqual([1, 2, 3, 4]);
  });

  test('a culprit named by bisection counts as confirmed, even when the only failure naming it was the run of its whole batch', () => {
    const h = new Harness({
      ...BATCH4,
      batchingMinSize: 2,
      concurrency: 2,
      canOptimisticallyMerge: true,
      pendingFailureDepth: 2,
      flakeRetries: 1,
      bisectionConcurrency: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
    });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(1);
    // Prefix [1, 2] is the failed batch itself: only [1] is tested.
    expect(bisectionRuns(h).map((r) => h.prsOf(r))).toEqual([[1]]);
    h.report(probe(h, [1]), 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.runOf(2).attempt).toBe(1);
    // Its rerun goes on beside the queue; the units behind no longer wait for it.
    expect(h.prsOf(h.runOf(3))).toEqual([3, 4]);
  });

  test('a culprit named by bisection counts as confirmed: while it is rerun, the units behind go on without it', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 2, concurrency: 2, canOptimisticallyMerge: true, pendingFailureDepth: 2, flakeRetries: 1 });
    for (const pr of [1, 2, 3, 4]) h.submit(pr);
    h.fail(1);
    h.report(probe(h, [1]), 'success');
    h.report(probe(h, [1, 2]), 'failure');
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.runOf(2).attempt).toBe(1);
    expect(h.prsOf(h.runOf(3))).toEqual([3, 4]);
  });

  test('units behind a bisected batch go on without it and keep their place; split entries keep theirs', () => {
    const h = new Harness({ ...BATCH4, batchingMinSize: 3, concurrency: 2, bisectionConcurrency: 2 });
    for (const pr of [1, 2, 3, 4, 5, 6]) h.submit(pr);
    h.update({ batchingMaxWaitTimeMinutes: 0 });
    h.fail(1);
    expect(h.prsOf(h.runOf(4))).toEqual([4, 5, 6]);
    h.report(probe(h, [1]), 'success');
    h.report(probe(h, [1, 2]), 'failure');
    expect(h.state(2)).toBe('FAILED');
    expect(h.order()).toEqual([3, 4, 5, 6]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    expect(h.prsOf(h.runOf(4))).toEqual([3, 4, 5, 6]);
  });

  test('a bisection run is never deciding the batch: cancelling a member restarts the batch without it', () => {
    const h = batchOf([1, 2, 3], { bisectionConcurrency: 2 });
    h.fail(1);
    const probes = bisectionRuns(h);
    h.cancel(2);
    for (const r of probes) expect(h.q.runs.find((x) => x.id === r.id)!.status).toBe('cancelled');
    expect(bisectionRuns(h)).toEqual([]);
    expect(h.prsOf(h.runOf(1))).toEqual([1, 3]);
    expect(h.state(3)).toBe('TESTING');
  });
});

describe('batching rule 4: bisection_skip_redundant_tests', () => {
  test('never reruns the failed batch itself', () => {
    const h = batchOf([1, 2, 3, 4], { bisectionConcurrency: 3, optimizationMode: 'bisection_skip_redundant_tests' });
    h.fail(1);
    expect(bisectionRuns(h).map((r) => h.prsOf(r))).toEqual([[1], [1, 2], [1, 2, 3]]);
    for (const run of bisectionRuns(h)) h.report(run, 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(h.state(4)).toBe('FAILED');
    expect(h.q.runs.filter((r) => r.kind === 'bisection').every((r) => r.prs.length < 4)).toBe(true);
  });

  test('with one run at a time it starts in the middle, and the failed batch names the last entry without a rerun', () => {
    const skip: Partial<QueueSettings> = { bisectionConcurrency: 1, optimizationMode: 'bisection_skip_redundant_tests' };
    const h = batchOf([1, 2, 3, 4], skip);
    h.fail(1);
    const first = bisectionRuns(h)[0]!;
    expect(h.prsOf(first)).toEqual([1, 2]);
    h.report(first, 'success');
    const second = bisectionRuns(h)[0]!;
    expect(h.prsOf(second)).toEqual([1, 2, 3]);
    h.report(second, 'success');
    // Prefix 4 is the failed batch: known, so #4 is named without another run.
    expect(bisectionRuns(h)).toEqual([]);
    expect(h.state(4)).toBe('FAILED');
    expect(h.q.runs.filter((r) => r.kind === 'bisection')).toHaveLength(2);
  });
});

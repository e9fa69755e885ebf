import { Harness } from './harness.js';

describe('rule 1: speculative runs', () => {
  test('each unit is tested on top of every unit ahead of it, up to `concurrency` runs at once', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    expect(h.prsOf(h.runOf(1))).toEqual([1]);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.state(3)).toBe('PENDING');
    expect(h.liveRuns()).toHaveLength(2);
    expect(h.runOf(2).dependencyEntryIds).toEqual([h.entry(1).id]);
  });

  test('a freed slot goes to the next unit in queue order, built on what is still unmerged ahead', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.pass(1);
    expect(h.state(1)).toBe('MERGED');
    expect(h.prsOf(h.runOf(3))).toEqual([2, 3]);
  });

  test('runs are written as creating with a test branch named after the run', () => {
    const h = new Harness();
    const { q } = h;
    h.q = { ...q };
    h.submit(7);
    const run = h.runOf(7);
    expect(run.testBranch).toBe(`mergeq/main/${run.id}`);
    expect(run.requiredStatuses).toEqual(['ci']);
    expect(run.requiredStatusesSource).toBe('queue');
    expect(h.plans[0]!.map((a) => a.type)).toEqual(['placeUnit', 'transition', 'createRun', 'transition']);
  });
});

describe('rule 2: a unit merges when its run passed and every unit ahead merged', () => {
  test('a unit that passes first waits for the unit ahead, then both merge in order', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.pass(2);
    expect(h.state(2)).toBe('TESTS_PASSED');
    expect(h.entry(2).mergeIntent).toBeNull();
    expect(h.merges).toEqual([]);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.entry(2).reason?.code).toBe('merged');
    expect(h.entry(2).history.map((t) => t.state)).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'MERGED']);
  });

  test('each PR merges separately, guarded by the SHA that was tested', () => {
    const h = new Harness();
    h.submit(1, { sha: 'abc123' });
    const seen: string[] = [];
    h.onMerge = (_q, e) => seen.push(e.mergeIntent!.expectedSha);
    h.pass(1);
    expect(seen).toEqual(['abc123']);
    expect(h.entry(1).mergeCommitSha).toBe('merge-1');
    expect(h.q.targetSha).toBe('merge-1');
  });

  test('a required check that never reports keeps the run pending', () => {
    const h = new Harness({ requiredStatuses: ['build', 'test'] });
    h.submit(1);
    h.report(h.runOf(1), 'success', 'build');
    h.report(h.runOf(1), 'failure', 'lint');
    expect(h.state(1)).toBe('TESTING');
    h.report(h.runOf(1), 'success', 'test');
    expect(h.state(1)).toBe('MERGED');
  });
});

describe('rule 3: canOptimisticallyMerge', () => {
  test('a passing run proves the units ahead that it contains: they merge at once, in order', () => {
    const h = new Harness({ concurrency: 3, canOptimisticallyMerge: true });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(h.merges.every((m) => m.runId === h.merges[2]!.runId)).toBe(true);
    expect(h.entry(1).reason?.code).toBe('merged');
    // The runs of 1 and 2 are no longer needed.
    expect(h.liveRuns()).toEqual([]);
  });

  test('without it, a later pass does not merge the units ahead', () => {
    const h = new Harness({ concurrency: 3, canOptimisticallyMerge: false });
    h.submit(1);
    h.submit(2);
    h.pass(2);
    expect(h.merges).toEqual([]);
    expect(h.state(1)).toBe('TESTING');
  });

  test('a unit ahead whose own run failed merges when a run containing it passes', () => {
    const h = new Harness({ concurrency: 3, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    h.submit(1);
    h.submit(2);
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    const evidence = h.q.runs.find((r) => h.prsOf(r).join() === '1,2')!;
    h.report(evidence, 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
  });
});

import { nextWakeUp } from '../../src/planner/index.js';
import { Harness } from './harness.js';

const parallel = { mode: 'parallel' as const, concurrency: 10, canOptimisticallyMerge: true, flakeRetries: 1 };

describe('parallel rule 1: readiness waits for impacted targets', () => {
  test('an entry without impacted targets for its head stays NOT_READY and holds no position', () => {
    const h = new Harness(parallel);
    h.submit(1);
    expect(h.state(1)).toBe('NOT_READY');
    expect(h.entry(1).readiness.hasImpactedTargets).toBe(false);
    expect(h.order()).toEqual([]);
    h.submit(2, { targets: ['a'] });
    expect(h.state(2)).toBe('TESTING');
  });
});

describe('parallel rules 2-3: runs hold only the transitive dependencies ahead', () => {
  test('independent units are tested alone; a unit sharing a target is tested on top of it', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'] });
    h.submit(3, { targets: ['a', 'c'] });
    expect(h.prsOf(h.runOf(1))).toEqual([1]);
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
  });

  test('dependencies are transitive: c on b on a gives [a, b, c]', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a', 'b'] });
    h.submit(3, { targets: ['b'] });
    h.submit(4, { targets: ['z'] });
    expect(h.prsOf(h.runOf(3))).toEqual([1, 2, 3]);
    expect(h.prsOf(h.runOf(4))).toEqual([4]);
  });

  test('an empty target list depends on nothing; every unit behind an ALL unit depends on it', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: [] });
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    h.submit(3, { targets: 'ALL' });
    h.submit(4, { targets: [] });
    h.submit(5, { targets: ['c'] });
    expect(h.prsOf(h.runOf(4))).toEqual([3, 4]);
    expect(h.prsOf(h.runOf(5))).toEqual([3, 5]);
  });

  test('`concurrency` bounds the runs in flight over all lanes together', () => {
    const h = new Harness({ ...parallel, concurrency: 2 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'] });
    h.submit(3, { targets: ['c'] });
    expect(h.liveRuns()).toHaveLength(2);
    expect(h.state(3)).toBe('PENDING');
    h.pass(2);
    expect(h.state(2)).toBe('MERGED');
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
  });
});

describe('parallel rule 3: independent lanes merge and fail independently', () => {
  test('two independent units behind a slow one merge before it', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['slow'] });
    h.submit(2, { targets: ['x'] });
    h.submit(3, { targets: ['y'] });
    h.pass(3);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2]);
    expect(h.state(1)).toBe('TESTING');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2, 1]);
  });

  test('a dependent unit that passes first still waits for the unit it depends on', () => {
    const h = new Harness({ ...parallel, canOptimisticallyMerge: false });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    h.pass(2);
    h.pass(3);
    expect(h.state(2)).toBe('TESTS_PASSED');
    expect(h.merges.map((m) => m.prNumber)).toEqual([3]);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 1, 2]);
  });

  test('with optimistic merging, a passing dependent run also merges the units ahead it contains (rule 3)', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.state(3)).toBe('TESTING');
  });

  test('a failure in one lane restarts nothing in another', () => {
    const h = new Harness({ ...parallel, flakeRetries: 0 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    const other = h.runOf(3).id;
    h.fail(1);
    // Its own failure: #2's run, which contains it, is the evidence that decides it.
    expect(h.state(1)).toBe('PENDING_FAILURE');
    h.fail(2);
    expect(h.state(1)).toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('readmitted');
    expect(h.runOf(3).id).toBe(other);
    expect(h.entry(3).history.map((t) => t.reason.code)).not.toContain('ahead_failed');
  });

  test('a landing unit restarts only the runs of units that depend on it', () => {
    // #1 direct-merges (rule 10) while #2 (same target) and #3 (other target) test without it.
    const h = new Harness({ ...parallel, directMergeMode: 'always' });
    h.q = { ...h.q, targetSha: 'main-0' };
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    const run3 = h.runOf(3).id;
    h.pass(2);
    expect(h.runOf(3).id).toBe(run3);
  });
});

describe('parallel rule 4 and rule 6: suspects', () => {
  test('a unit whose own run fails is rerun while its lane keeps it; a passing rerun merges it in place', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.runOf(1).attempt).toBe(1);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    h.pass(1);
    expect(h.state(1)).toBe('MERGED');
    expect(h.entry(1).history.map((t) => t.reason.code)).not.toContain('retry_passed');
  });

  test('a confirmed failure sends its lane on without it; the other lanes never notice', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['a'] });
    h.submit(3, { targets: ['b'] });
    const other = h.runOf(3).id;
    h.fail(1);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    h.fail(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.entry(1).reason?.code).toBe('tests_failed');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.runOf(3).id).toBe(other);
    h.pass(3);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2]);
  });

  test('a bad ALL unit fails on its own; the lanes behind it then go on without it', () => {
    const h = new Harness({ ...parallel, flakeRetries: 0 });
    h.submit(1, { targets: 'ALL' });
    h.submit(2, { targets: ['b'] });
    h.submit(3, { targets: ['c'] });
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    h.fail(1);
    // Its own failure: the runs behind that hold it are the evidence.
    expect(h.state(1)).toBe('PENDING_FAILURE');
    h.fail(2);
    expect(h.state(1)).toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    h.pass(3);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2]);
  });
});

describe('mergeq ALL policy (docs/all-targets.md)', () => {
  test('an ALL unit goes ahead of the units still under test, which restart on top of it', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'] });
    h.submit(3, { targets: 'ALL' });
    expect(h.order()).toEqual([3, 1, 2]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    expect(h.prsOf(h.runOf(1))).toEqual([3, 1]);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('all_targets_ahead');
    h.submit(4, { targets: ['c'] });
    expect(h.prsOf(h.runOf(4))).toEqual([3, 4]);
    h.pass(4);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 4]);
  });

  test('an ALL unit stays behind the units already proven, higher priorities and earlier ALL units', () => {
    const h = new Harness({ ...parallel, canOptimisticallyMerge: false });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'] });
    h.pass(2);
    h.submit(3, { targets: ['c'], priority: 'high' });
    h.submit(4, { targets: 'ALL' });
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    expect(h.order()).toEqual([4, 1, 3]);
    h.submit(5, { targets: ['d'], priority: 'urgent' });
    h.submit(6, { targets: 'ALL' });
    expect(h.order()).toEqual([5, 4, 6, 1, 3]);
  });

  test('a unit joins ahead of a unit merging past an unproven one only once that merge is recorded', () => {
    // Found by the property test (seed 177259262): #3 passed and began to merge past #2, which it does
    // not depend on, in the plan that admitted the ALL PR #1; #1 was placed ahead of #3, so #3 merged
    // with a unit it depends on ahead of it and untested with it.
    const h = new Harness({ mode: 'parallel', concurrency: 1, canOptimisticallyMerge: false, flakeRetries: 0, pendingFailureDepth: 0 });
    h.submit(2, { targets: [], priority: 'low' });
    h.submit(1, { targets: 'ALL' });
    h.submit(3, { targets: [] });
    expect(h.state(1)).toBe('NOT_READY');
    h.testResults(h.runOf(2), [{ testCaseId: 'flaky', name: 'flaky test', knownFlaky: true, quarantined: false }]);
    h.fail(2);
    h.fail(2);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    const aheadAtMerge: number[][] = [];
    h.onMerge = (q, e) => {
      const place = q.units.findIndex((u) => u.entryIds.includes(e.id));
      aheadAtMerge.push(q.units.slice(0, place).flatMap((u) => u.entryIds.map((id) => q.entries.find((x) => x.id === id)!.prNumber)));
    };
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3]);
    expect(aheadAtMerge).toEqual([[2]]);
    // Once #3's merge is recorded, #1 takes its place ahead of the unproven #2.
    expect(h.order()).toEqual([1, 2]);
  });

  test('an ALL PR waits, holding nothing, while joining would restart more than 45% of concurrency in runs', () => {
    const h = new Harness({ ...parallel, concurrency: 5 }); // at most 2 restarts
    for (const [n, t] of [[1, 'a'], [2, 'b'], [3, 'c']] as const) h.submit(n, { targets: [t] });
    h.submit(4, { targets: 'ALL' });
    expect(h.state(4)).toBe('NOT_READY');
    expect(h.entry(4).reason).toMatchObject({ code: 'all_targets_wait' });
    expect(h.entry(4).reason?.message).toContain('at most 2 of the runs in flight (3 when it began to wait)');
    // A PR arriving meanwhile is placed and tested as if #4 were not there.
    h.submit(5, { targets: ['d'] });
    expect(h.order()).toEqual([1, 2, 3, 5]);
    expect(h.prsOf(h.runOf(5))).toEqual([5]);
    h.pass(1);
    expect(h.state(4)).toBe('NOT_READY'); // 3 still under test
    h.pass(2);
    // Two under test: it joins ahead of them, and they restart on top of it.
    expect(h.order()).toEqual([4, 3, 5]);
    expect(h.prsOf(h.runOf(4))).toEqual([4]);
    expect(h.prsOf(h.runOf(3))).toEqual([4, 3]);
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('all_targets_ahead');
    // The wait was recorded once, not on every plan.
    expect(h.entry(4).history.filter((t) => t.reason.code === 'all_targets_wait')).toHaveLength(1);
  });

  test('an ALL PR waits 120 minutes at most; the planner asks to be woken then', () => {
    const h = new Harness({ ...parallel, concurrency: 2 }); // no restart at all is allowed
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: 'ALL' });
    expect(h.state(2)).toBe('NOT_READY');
    expect(nextWakeUp({ queue: h.q, targets: h.targets }, h.now)?.getTime()).toBe(h.now.getTime() + 120 * 60_000);
    h.advance(119);
    expect(h.state(2)).toBe('NOT_READY');
    h.advance(1);
    expect(h.order()).toEqual([2, 1]);
    expect(h.prsOf(h.runOf(1))).toEqual([2, 1]);
  });

  test('an urgent ALL PR does not wait', () => {
    const h = new Harness({ ...parallel, concurrency: 2 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: 'ALL', priority: 'urgent' });
    expect(h.order()).toEqual([2, 1]);
  });

  test('an ALL unit starts on an earlier ALL unit under test: a cluster of ALL PRs is tested as a chain', () => {
    const h = new Harness(parallel);
    h.submit(1, { targets: 'ALL' });
    h.submit(2, { targets: 'ALL' });
    h.submit(3, { targets: ['a'] });
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 2, 3]);
    // #1 turns out bad: the chain goes on without it.
    h.fail(1);
    h.fail(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.prsOf(h.runOf(3))).toEqual([2, 3]);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3]);
  });

  test('in single mode targets are ignored: nothing moves ahead of units under test', () => {
    const h = new Harness({ concurrency: 4 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: 'ALL' });
    expect(h.order()).toEqual([1, 2]);
  });
});

describe('parallel mode with batching: a split batch keeps what its culprit depends on', () => {
  test('a run that held the culprit without a PR it depends on proves nothing once that PR lands', () => {
    const h = new Harness({ ...parallel, batch: true, batchingMinSize: 2, batchingMaxWaitTimeMinutes: 30, bisectionConcurrency: 1, optimizationMode: 'bisection_skip_redundant_tests' });
    h.submit(1, { targets: ['x'], noBatch: true }); // bad
    h.submit(2, { targets: ['x', 'a'], noBatch: true }); // L: depends on #1
    h.submit(3, { targets: ['b'] }); // batch [3, 4]: #4 depends on L
    h.submit(4, { targets: ['a'] });
    h.submit(5, { targets: ['b'], noBatch: true }); // U: depends on #3 only
    expect(h.prsOf(h.runOf(5))).toEqual([1, 2, 3, 4, 5]);
    // L fails while #1 is unresolved: the lane goes on without it.
    h.fail(2);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('suspect');
    const withoutL = h.runOf(5);
    expect(h.prsOf(withoutL)).toEqual([3, 4, 5]);
    // U's run passes: it holds #4, but not L, which #4 depends on. Nothing merges on it yet.
    h.report(withoutL, 'success');
    expect(h.merges).toEqual([]);
    // The batch fails on its own; bisection names #4 (#3 alone passes) and #3 merges.
    h.fail(3);
    h.report(h.liveRuns().find((r) => r.kind === 'bisection')!, 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([3]);
    expect(h.state(4)).toBe('PENDING_FAILURE');
    // #1 was the culprit: L is re-admitted at its place, passes and merges.
    h.fail(1);
    h.fail(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2]);
    // #4 depends on L: U's run, which lacked L, must not prove it. It is tested again on what
    // has landed (L included) and merges on that.
    expect(h.merges.map((m) => m.runId)).not.toContain(withoutL.id);
    expect(h.state(4)).toBe('TESTING');
    const retest = h.runOf(4);
    expect(h.mergesAtBuild.get(retest.id)).toBe(2);
    h.pass(4);
    expect(h.merges.map((m) => [m.prNumber, m.runId])).toContainEqual([4, retest.id]);
  });
});

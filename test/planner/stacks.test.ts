import { measureQueue } from '../../src/metrics/queue-measures.js';
import { submitPr } from './builders.js';
import { Harness } from './harness.js';
import { playCi, submitStack } from './stack-harness.js';

describe('stacked pull requests', () => {
  test('a 3-member stack is one unit, tested in one run with the top holding every member, and lands bottom up', () => {
    const h = new Harness({ concurrency: 3 });
    submitStack(h, [1, 2, 3]);
    const runs = h.liveRuns();
    expect(runs).toHaveLength(1);
    expect(h.prsOf(runs[0]!)).toEqual([1, 2, 3]);
    playCi(h, []);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(new Set(h.merges.map((m) => m.runId))).toEqual(new Set([runs[0]!.id]));
    const hour = { since: h.now.getTime() - 3_600_000, until: h.now.getTime() };
    const measured = measureQueue({ queue: h.q, runs: h.q.runs, entries: h.q.entries }, hour);
    expect([measured.stacksLanded, measured.stackMembersLanded]).toEqual([1, 3]);
  });

  test('a culprit at layer 3 of 5: layers 1-2 land, 3 fails with its tests, 4-5 leave naming it, in at most 1 + ceil(log2 5) runs', () => {
    const h = new Harness({ concurrency: 2, bisectionConcurrency: 1, flakeRetries: 0 });
    submitStack(h, [1, 2, 3, 4, 5]);
    const runs = playCi(h, [3]);
    expect(runs.length).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(5)));
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.state(3)).toBe('FAILED');
    expect(h.entry(3).reason?.code).toBe('tests_failed');
    for (const n of [4, 5]) {
      expect(h.state(n)).toBe('FAILED');
      expect(h.entry(n).reason).toEqual({ code: 'stack_member_failed', message: expect.stringContaining('#3') as string });
    }
  });

  test('the PRs behind a stack being bisected are not blamed for its culprit and merge past it; the layers it cleared re-enter at the tail and land', () => {
    const h = new Harness({ concurrency: 3, bisectionConcurrency: 1, flakeRetries: 0 });
    submitStack(h, [1, 2, 3]);
    h.submit(9);
    playCi(h, [2]);
    // #9 was tested without the failed stack: it does not wait for the stack's bisection rounds.
    expect(h.merges.map((m) => m.prNumber)).toEqual([9, 1]);
    expect(h.entry(1).history.map((t) => t.reason.code)).toEqual(expect.arrayContaining(['overtaken', 'retry_passed']));
    // #1's proof was built once #9 had merged: it tested #1 on top of it.
    expect(h.mergesAtBuild.get(h.merges[1]!.runId!)).toBe(1);
    expect(h.state(2)).toBe('FAILED');
    expect(h.state(3)).toBe('FAILED');
    expect(h.entry(3).reason?.code).toBe('stack_member_failed');
  });

  test('a failed stack whose run held a PR ahead that fails too re-enters at the tail: the PR behind, already tested without it, is not rebuilt with it again', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1, pendingFailureDepth: 0, canOptimisticallyMerge: true });
    h.submit(1);
    submitStack(h, [2, 3]);
    h.submit(9);
    const stackRun = h.liveRuns().find((r) => h.prsOf(r).join() === '1,2,3')!;
    h.report(stackRun, 'failure');
    // Its failure may be #1's: #9 goes on without the stack at once.
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual(expect.arrayContaining([[1], [1, 9]]));
    h.report(h.liveRuns().find((r) => h.prsOf(r).join() === '1')!, 'failure');
    // #1 ahead of the stack failed: the stack re-enters behind #9, which is rebuilt without #1 only,
    // not with the stack it already left behind (and then without it again if it fails once more).
    expect(h.order().slice(-3)).toEqual([9, 2, 3]);
    expect(h.entry(2).history.map((t) => t.reason.message)).toContainEqual(expect.stringMatching(/#1 ahead of it failed.*re-enters the queue at the tail/));
    const live = h.liveRuns().map((r) => h.prsOf(r));
    expect(live).toEqual(expect.arrayContaining([[9], [9, 2, 3]]));
    expect(live.filter((prs) => prs.at(-1) === 9)).toEqual([[9]]);
    playCi(h, [1, 3]);
    expect(h.merges.map((m) => m.prNumber)).toEqual([9, 2]);
    expect([h.state(1), h.state(3)]).toEqual(['FAILED', 'FAILED']);
  });

  test('with batching, such a stack is rerun alone beside the queue instead, and PRs behind are not rebuilt with it', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1, pendingFailureDepth: 0, canOptimisticallyMerge: true, batch: true, batchingMinSize: 1, batchingMaxWaitTimeMinutes: 0 });
    h.submit(1);
    submitStack(h, [2, 3]);
    h.submit(9);
    h.advance(1);
    h.report(h.liveRuns().find((r) => h.prsOf(r).join() === '1,2,3')!, 'failure');
    h.report(h.liveRuns().find((r) => h.prsOf(r).join() === '1')!, 'failure');
    const live = h.liveRuns().map((r) => h.prsOf(r));
    expect(live).toEqual(expect.arrayContaining([[2, 3], [9]]));
    expect(live.filter((prs) => prs.includes(9))).toEqual([[9]]);
    playCi(h, [1, 3]);
    expect(h.merges.map((m) => m.prNumber)).toEqual([9, 2]);
    expect([h.state(1), h.state(3)]).toEqual(['FAILED', 'FAILED']);
  });

  test('a layer that bisection names but whose flake rerun passes is no culprit: the layers above wait for it and the stack lands whole', () => {
    const h = new Harness({ concurrency: 2, bisectionConcurrency: 1, flakeRetries: 1 });
    submitStack(h, [1, 2, 3, 4]);
    // The unit's run and the prefix 1..2 fail (flakes); the prefix 1..1 passes.
    h.report(h.liveRuns()[0]!, 'failure');
    const flaked = new Set<string>();
    for (let guard = 0; guard < 50 && h.liveRuns().length > 0; guard++) {
      for (const run of h.liveRuns()) {
        const prs = h.prsOf(run);
        const flake = run.kind === 'bisection' && prs.join() === '1,2' && !flaked.has('p2');
        if (flake) flaked.add('p2');
        if (run.kind === 'main' && prs.join() === '2') {
          // While #2's rerun is under way the layers above are out of the queue, waiting for it.
          expect([h.state(3), h.state(4)]).toEqual(['NOT_READY', 'NOT_READY']);
          expect(h.entry(3).reason?.message).toMatch(/waiting for stack member #2/);
          flaked.add('rerun');
        }
        h.report(run, flake ? 'failure' : 'success');
      }
    }
    expect([...flaked]).toEqual(['p2', 'rerun']);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3, 4]);
    expect(h.q.entries.filter((e) => e.reason?.code === 'stack_member_failed')).toEqual([]);
  });

  test("a prefix of a stack that fails only on a known flaky test is tested again, not taken as the culprit's failure", () => {
    const h = new Harness({ concurrency: 2, bisectionConcurrency: 1, flakeRetries: 0 });
    submitStack(h, [1, 2, 3]);
    const real = [{ testCaseId: 't3', name: 'test of #3', knownFlaky: false, quarantined: false }];
    const flaky = [{ testCaseId: 'f', name: 'flaky test', knownFlaky: true, quarantined: false }];
    let flaked = 0;
    for (let guard = 0; guard < 50 && h.liveRuns().length > 0; guard++) {
      for (const run of h.liveRuns()) {
        const holdsBad = h.prsOf(run).includes(3);
        const flake = !holdsBad && run.kind === 'bisection' && flaked === 0;
        if (flake) flaked++;
        if (holdsBad || flake) {
          h.testResults(run, holdsBad ? real : flaky);
          h.report(run, 'failure');
        } else {
          h.report(run, 'success');
        }
      }
    }
    expect(flaked).toBe(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.entry(3).reason?.code).toBe('tests_failed');
    // Bisection named #3 once and only #3: the flaky prefix named no layer below it.
    const named = h.q.entries.filter((e) => e.history.some((t) => t.reason.code === 'bisection_culprit')).map((e) => e.prNumber);
    expect(named).toEqual([3]);
  });

  test('a layer named by bisection whose rerun fails too is the culprit: the layers above then leave naming it', () => {
    const h = new Harness({ concurrency: 2, bisectionConcurrency: 1, flakeRetries: 1 });
    submitStack(h, [1, 2, 3]);
    playCi(h, [2]);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.entry(2).reason?.code).toBe('tests_failed');
    expect(h.entry(3).reason).toEqual({ code: 'stack_member_failed', message: expect.stringContaining('#2') as string });
  });

  test('cancelling layer 2 of 4 while the unit tests takes 2-4 out, and layer 1 is tested again alone', () => {
    const h = new Harness({ concurrency: 2 });
    submitStack(h, [1, 2, 3, 4]);
    const first = h.liveRuns()[0]!;
    h.cancel(2);
    expect(h.q.runs.find((r) => r.id === first.id)!.status).toBe('cancelled');
    expect(h.state(2)).toBe('CANCELLED');
    for (const n of [3, 4]) {
      expect(h.state(n)).toBe('CANCELLED');
      expect(h.entry(n).reason?.message).toMatch(/#2 below it in its stack left the queue/);
    }
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1]]);
    playCi(h, []);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('a member that is not ready holds the whole unit and the others say which one; once ready, one run', () => {
    const h = new Harness({ concurrency: 2 });
    submitStack(h, [1, 2, 3], { notReady: [2] });
    expect(h.liveRuns()).toEqual([]);
    expect([h.state(1), h.state(2), h.state(3)]).toEqual(['NOT_READY', 'NOT_READY', 'NOT_READY']);
    expect(h.entry(1).reason?.message).toBe('waiting for stack member #2: an approval is missing');
    expect(h.entry(3).reason?.message).toBe('waiting for stack member #2: an approval is missing');
    h.q = { ...h.q, entries: h.q.entries.map((e) => (e.prNumber === 2 ? { ...e, readiness: { ...e.readiness, gitHubMergeability: 'MERGEABLE', note: null } } : e)) };
    h.settle();
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1, 2, 3]]);
  });

  test('members queued later join the unit, which is tested again as a whole', () => {
    const h = new Harness({ concurrency: 2 });
    submitStack(h, [1, 2]);
    const before = h.liveRuns()[0]!;
    h.q = submitPr(h.q, 3, h.now, { stack: { id: 'stack-1', position: 3 }, readiness: { doesBaseBranchMatch: false } }).queue;
    h.settle();
    expect(h.q.runs.find((r) => r.id === before.id)!.status).toBe('cancelled');
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1, 2, 3]]);
    playCi(h, []);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
  });

  test('a 100-member stack lands with one run', () => {
    const h = new Harness({ concurrency: 1 });
    const prs = Array.from({ length: 100 }, (_, i) => i + 1);
    submitStack(h, prs);
    const runs = playCi(h, []);
    expect(runs).toHaveLength(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual(prs);
  });

  test('with batching on, a stack due on its own is one batch, never split, and the PR behind it follows', () => {
    const h = new Harness({ concurrency: 2, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 0 });
    submitStack(h, [1, 2, 3]);
    h.submit(7);
    h.advance(1);
    const contents = h.liveRuns().map((r) => h.prsOf(r));
    expect(contents[0]).toEqual([1, 2, 3]);
    playCi(h, []);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3, 7]);
  });
});

describe('stacked pull requests in parallel mode', () => {
  /** Members submitted with their impacted targets; the unit is placed once the last one is in. */
  function submitStackWithTargets(h: Harness, targets: string[][]): void {
    targets.forEach((t, i) => {
      h.submit(i + 1, { targets: t, stack: { id: 'stack-p', position: i + 1 }, readiness: i > 0 ? { doesBaseBranchMatch: false } : {} });
    });
  }

  test("a stack's impacted targets are the union of its members': one run for the stack, a PR on disjoint targets runs beside it, one on a member's target behind it", () => {
    const h = new Harness({ mode: 'parallel', concurrency: 4 });
    submitStackWithTargets(h, [['a'], ['b']]);
    h.submit(9, { targets: ['c'] });
    h.submit(8, { targets: ['b'] });
    const contents = h.liveRuns().map((r) => h.prsOf(r));
    expect(contents).toEqual(expect.arrayContaining([[1, 2], [9], [1, 2, 8]]));
    expect(contents).toHaveLength(3);
    playCi(h, []);
    expect(h.merges.map((m) => m.prNumber).sort()).toEqual([1, 2, 8, 9]);
    expect(new Set(h.merges.filter((m) => m.prNumber <= 2).map((m) => m.runId)).size).toBe(1);
  });

  test('in parallel mode a failing stack does not hold a PR on disjoint targets', () => {
    const h = new Harness({ mode: 'parallel', concurrency: 4, bisectionConcurrency: 1, flakeRetries: 0 });
    submitStackWithTargets(h, [['a'], ['b'], ['a']]);
    h.submit(9, { targets: ['c'] });
    h.report(h.liveRuns().find((r) => h.prsOf(r).join() === '9')!, 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([9]);
    playCi(h, [2]);
    expect(h.merges.map((m) => m.prNumber)).toEqual([9, 1]);
    expect(h.entry(3).reason?.code).toBe('stack_member_failed');
  });
});

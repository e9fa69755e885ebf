import { Harness } from './harness.js';

function runWith(h: Harness, prs: number[]) {
  const run = h.q.runs.find((r) => h.prsOf(r).join() === prs.join() && (r.status === 'pending' || r.status === 'passed'));
  if (!run) throw new Error(`no live run [${prs}]`);
  return run;
}

describe('rule 4: a unit whose run fails while a unit ahead is unresolved becomes a suspect', () => {
  test('it goes to PENDING_FAILURE and the units behind are rebuilt without it, keeping their positions', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.entry(2).reason?.code).toBe('suspect');
    expect(h.entry(2).reason?.message).toContain('#1');
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
    expect(h.entry(3).history.map((t) => t.reason.code)).toContain('ahead_failed');
    expect(h.order()).toEqual([1, 2, 3]);
    expect(h.q.runs.find((r) => h.prsOf(r).join() === '1,2,3')!.status).toBe('cancelled');
  });

  test('the first pendingFailureDepth results behind it are kept as flake evidence', () => {
    const h = new Harness({ concurrency: 4, pendingFailureDepth: 1, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.submit(4);
    h.fail(2);
    expect(runWith(h, [1, 2, 3]).status).toBe('pending');
    expect(h.q.runs.find((r) => h.prsOf(r).join() === '1,2,3,4')!.status).toBe('cancelled');
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
    expect(h.prsOf(h.runOf(4))).toEqual([1, 3, 4]);
  });

  test('with canOptimisticallyMerge a passing evidence result merges the suspect, and what left it out restarts', () => {
    const h = new Harness({ concurrency: 4, pendingFailureDepth: 1, canOptimisticallyMerge: true, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.submit(4);
    h.fail(2);
    h.report(runWith(h, [1, 2, 3]), 'success');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(h.prsOf(h.runOf(4))).toEqual([4]);
    expect(h.entry(4).history.map((t) => t.reason.code)).toContain('readmitted');
  });

  test('a passing run that left the suspect out merges the units ahead of it, and the ones behind while it is rerun', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2);
    h.pass(3); // [1,3]
    expect(h.state(3)).toBe('TESTS_PASSED');
    expect(h.merges).toEqual([]);
    h.pass(1);
    // 2's failure is now its own: it is rerun beside the queue; 3 was tested without it and merges.
    expect(h.runOf(2).attempt).toBe(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 3]);
    h.fail(2);
    expect(h.state(2)).toBe('FAILED');
  });

  test('a suspect that every unit behind left out, whose rerun passes, goes to the tail and is tested on what merged past it', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1 });
    for (const pr of [1, 2, 3]) h.submit(pr);
    h.fail(1);
    expect(h.runOf(1).attempt).toBe(1);
    h.pass(2); // [2]
    h.pass(3); // [2,3]
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3]);
    expect(h.entry(1).reason?.code).toBe('overtaken');
    const rerun = h.runOf(1);
    h.report(rerun, 'success'); // without 2 and 3: a verdict, not a proof
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3]);
    expect(h.state(1)).toBe('TESTING');
    expect(h.runOf(1).id).not.toBe(rerun.id);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3, 1]);
  });

  test('a suspect kept as flake evidence by the units behind still holds their merges', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1, canOptimisticallyMerge: true, pendingFailureDepth: 1 });
    for (const pr of [1, 2, 3]) h.submit(pr);
    h.fail(1);
    // #2's run keeps #1 (evidence); #3's run, beyond the depth, left it out.
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect(h.prsOf(h.runOf(3))).toEqual([2, 3]);
    h.pass(3);
    expect(h.merges).toEqual([]);
  });
});

describe('rule 5: a failure is not blamed on a unit while a unit ahead in its run explains it', () => {
  test('an evidence result that fails does not make the unit behind a suspect', () => {
    const h = new Harness({ concurrency: 3, pendingFailureDepth: 1, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2);
    h.report(runWith(h, [1, 2, 3]), 'failure');
    expect(h.state(3)).toBe('TESTING');
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
  });

  test('when the unit ahead turns out to be the culprit, a suspect kept by the units behind is re-admitted at its own position', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 0, canOptimisticallyMerge: true, pendingFailureDepth: 2 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2); // [1,2] failed: 2 is a suspect while 1 is unresolved; #3 keeps it as flake evidence
    expect(h.prsOf(h.runOf(3))).toEqual([1, 2, 3]);
    h.fail(1); // 1 is the culprit
    expect(h.state(1)).toBe('FAILED');
    expect(h.state(2)).toBe('TESTING');
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('readmitted');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.prsOf(h.runOf(3))).toEqual([2, 3]);
    expect(h.order()).toEqual([2, 3]);
  });

  test('a suspect whose rerun holds a unit ahead that fails in turn is rerun without it, and nothing behind restarts for it', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2); // [1,2] failed while #1 is unresolved: #2 is a suspect, rerun at once on [1,2]
    const firstRerun = h.runOf(2);
    expect(h.prsOf(firstRerun)).toEqual([1, 2]);
    const three = h.runOf(3);
    expect(h.prsOf(three)).toEqual([1, 3]);
    h.fail(1); // #1 fails its own run: a suspect too, left out behind it
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.q.runs.find((r) => r.id === firstRerun.id)!.status).toBe('cancelled');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    // #2 was not re-admitted at its place: #3 was rebuilt once (without #1), not twice.
    expect(h.entry(3).history.filter((t) => t.state === 'TESTING')).toHaveLength(3);
  });

  test('a suspect the units behind left out is rerun without the culprit instead, and re-enters at the tail when that passes', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 0 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(2); // [1,2] failed: 2 is a suspect while 1 is unresolved; #3 is rebuilt without it
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
    h.fail(1); // 1 is the culprit
    expect(h.state(1)).toBe('FAILED');
    // Re-admitting #2 at its place would rebuild #3 once more, on top of it: #2 is rerun beside instead.
    expect(h.state(2)).toBe('PENDING_FAILURE');
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    expect(h.entry(2).reason?.message).toBe('#1 ahead of it was removed; retesting it without #1');
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    h.pass(2);
    expect(h.order()).toEqual([3, 2]);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.prsOf(h.runOf(2))).toEqual([3, 2]);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3]);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([3, 2]);
  });
});

describe('rule 6: flakeRetries', () => {
  test('a head-of-queue failure is rerun with identical content beside the queue', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    const first = h.runOf(1);
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.entry(1).reason?.code).toBe('test_started');
    const rerun = h.runOf(1);
    expect(rerun.id).not.toBe(first.id);
    expect(rerun.attempt).toBe(1);
    expect(h.prsOf(rerun)).toEqual([1]);
    // The queue goes on without it.
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
  });

  test('a passing rerun re-enters the queue at the tail', () => {
    const h = new Harness({ concurrency: 3, flakeRetries: 1 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.fail(1);
    h.pass(1);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.order()).toEqual([2, 3, 1]);
    expect(h.prsOf(h.runOf(1))).toEqual([2, 3, 1]);
  });

  test('when the reruns fail too it is FAILED with tests_failed naming the failing checks', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 2, requiredStatuses: ['build', 'unit'] });
    h.submit(1);
    for (let i = 0; i < 3; i++) {
      expect(h.state(1)).not.toBe('FAILED');
      h.report(h.runOf(1), 'success', 'build');
      h.report(h.runOf(1), 'failure', 'unit');
    }
    expect(h.state(1)).toBe('FAILED');
    expect(h.entry(1).reason).toEqual({ code: 'tests_failed', message: 'failing checks: unit' });
    expect(h.q.runs.filter((r) => h.prsOf(r).join() === '1')).toHaveLength(3);
  });

  test('it is FAILED only once its evidence results are in without a pass', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 0, pendingFailureDepth: 1 });
    h.submit(1);
    h.submit(2);
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    h.report(runWith(h, [1, 2]), 'failure');
    expect(h.state(1)).toBe('FAILED');
  });

  test('without optimistic merging, a passing evidence result sends it to the tail instead of failing it', () => {
    const h = new Harness({ concurrency: 2, flakeRetries: 0, pendingFailureDepth: 1 });
    h.submit(1);
    h.submit(2);
    h.fail(1);
    h.report(runWith(h, [1, 2]), 'success');
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('retry_passed');
    expect(h.order()).toEqual([2, 1]);
    expect(h.prsOf(h.runOf(1))).toEqual([2, 1]);
  });

  test('flakeRetries 0: a failure with everything ahead merged fails at once', () => {
    const h = new Harness({ flakeRetries: 0 });
    h.submit(1);
    h.fail(1);
    expect(h.state(1)).toBe('FAILED');
    expect(h.entry(1).history.map((t) => t.state)).toEqual(['NOT_READY', 'PENDING', 'TESTING', 'PENDING_FAILURE', 'FAILED']);
  });
});

describe('rule 4 with canOptimisticallyMerge: the units behind a suspect keep building on it until its failure is confirmed', () => {
  const settings = { concurrency: 4, canOptimisticallyMerge: true, pendingFailureDepth: 10, flakeRetries: 1 };

  test('a flake costs the units behind nothing: a run behind that passes merges the suspect', () => {
    const h = new Harness(settings);
    for (const n of [1, 2, 3, 4]) h.submit(n);
    const behind = [h.runOf(3).id, h.runOf(4).id];
    h.fail(2);
    expect(h.state(2)).toBe('PENDING_FAILURE');
    // Its rerun starts at once, with the same content, beside the queue.
    expect(h.runOf(2).attempt).toBe(1);
    expect(h.prsOf(h.runOf(2))).toEqual([1, 2]);
    expect([h.runOf(3).id, h.runOf(4).id]).toEqual(behind);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
    expect(h.entry(4).history.map((t) => t.reason.code)).not.toContain('ahead_failed');
  });

  test('a bad PR is confirmed by a second failure once what is ahead of it is proven; then the units behind are rebuilt without it', () => {
    const h = new Harness(settings);
    for (const n of [1, 2, 3, 4]) h.submit(n);
    h.fail(2);
    h.fail(3); // [1,2,3]: explained by 2, which the units behind still build on
    expect(h.state(3)).toBe('PENDING_FAILURE');
    expect(h.entry(3).reason?.code).toBe('suspect');
    expect(h.entry(2).history.map((t) => t.reason.code)).not.toContain('failure_confirmed');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('failure_confirmed');
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    expect(h.prsOf(h.runOf(4))).toEqual([3, 4]);
    expect(h.state(3)).toBe('TESTING');
    h.fail(2); // its rerun fails too
    expect(h.state(2)).toBe('FAILED');
    expect(h.entry(2).reason?.code).toBe('tests_failed');
    h.pass(4);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 3, 4]);
  });

  test('a passing rerun puts it back at its own place: the units behind, still built on it, go on', () => {
    const h = new Harness(settings);
    h.submit(1);
    h.submit(2);
    h.submit(3);
    const behind = h.runOf(3).id;
    h.fail(2);
    h.pass(2); // the rerun, [1,2], passes: with optimistic merging it proves 1 and then 2
    expect(h.entry(2).history.map((t) => t.reason.code)).toContain('readmitted');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.runOf(3).id).toBe(behind);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
  });

  test('at the head, the passing rerun tested exactly what lands: it merges', () => {
    const h = new Harness(settings);
    h.submit(1);
    h.submit(2);
    h.fail(1);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('beyond pendingFailureDepth the units behind are rebuilt without it at once', () => {
    const h = new Harness({ ...settings, pendingFailureDepth: 1 });
    for (const n of [1, 2, 3, 4]) h.submit(n);
    h.fail(2);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 2, 3]);
    expect(h.prsOf(h.runOf(4))).toEqual([1, 3, 4]);
  });
});

import { MAX_RESTARTS } from '../../src/planner/phases/restart-loop.js';
import { recordTargetHead } from '../../src/planner/index.js';
import { measureQueue } from '../../src/metrics/queue-measures.js';
import { Harness } from './harness.js';

/**
 * The spin guard (restart-loop.ts): a git host that builds every test branch of a PR on a base the
 * queue cannot use (here: an older head of the target, before the queue's own merge) makes the PR
 * restart at once, over and over, in the same instant. Without the guard the queue never settles.
 */
describe('the spin guard: a PR that restarts without end is held', () => {
  function spinning() {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.pass(1); // merged: the lineage is now [main-0, merge-1]
    h.builtOn = (run) => (run.prs.some((p) => p.prNumber === 2) ? 'main-0' : h.q.targetSha!);
    h.submit(2);
    return h;
  }

  test('held as NOT_READY after MAX_RESTARTS restarts in a minute, naming what repeats; the queue settles', () => {
    const h = spinning();
    const e = h.entry(2);
    expect(e.state).toBe('NOT_READY');
    expect(e.reason?.code).toBe('restart_loop');
    expect(e.reason?.message).toMatch(/restarted 11 times in a minute \(the test branch was built on an older head of the target branch: built again\)/);
    expect(e.hold?.code).toBe('restart_loop');
    expect(h.q.runs.filter((r) => r.prs.some((p) => p.prNumber === 2))).toHaveLength(MAX_RESTARTS + 1);
    expect(h.liveRuns()).toEqual([]);
    const hour = { since: h.now.getTime() - 3_600_000, until: h.now.getTime() };
    expect(measureQueue({ queue: h.q, runs: [], entries: h.q.entries }, hour).restartLoopHolds).toBe(1);
    // Nothing more happens later while nothing changes.
    const runs = h.q.runs.length;
    h.advance(30);
    expect(h.q.runs.length).toBe(runs);
    expect(h.state(2)).toBe('NOT_READY');
  });

  test('the PRs behind a held PR are tested and merged without it', () => {
    const h = spinning();
    h.submit(3);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 3]);
  });

  test('the hold lifts when the target branch moves, and when a person restarts or resubmits the PR', () => {
    const moved = spinning();
    moved.builtOn = null;
    moved.q = recordTargetHead(moved.q, 'pushed-by-someone', moved.now);
    moved.settle();
    expect(moved.state(2)).toBe('TESTING');
    expect(moved.entry(2).hold).toBeNull();

    const restarted = spinning();
    restarted.builtOn = null;
    restarted.restart(2);
    expect(restarted.state(2)).toBe('TESTING');

    const resubmitted = spinning();
    resubmitted.builtOn = null;
    resubmitted.submit(2);
    expect(resubmitted.state(2)).toBe('TESTING');
  });

  test("a person's restarts do not count as a loop", () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    for (let i = 0; i < MAX_RESTARTS + 3; i++) h.restart(1);
    expect(h.state(1)).toBe('TESTING');
  });
});

import { Harness } from './harness.js';

/** Mode switches (queue-semantics.md, queue states: `switching_modes`). */
describe('mode switches', () => {
  test('with nothing in flight the new mode applies at once and the state stays', () => {
    const h = new Harness({ mode: 'single' });
    h.update({ mode: 'parallel' });
    expect(h.q.state).toBe('running');
    expect(h.q.settings.mode).toBe('parallel');
    expect(h.q.switching).toBeNull();
  });

  test('single -> parallel: new submissions wait, the run in flight merges, then PRs need impacted targets', () => {
    const h = new Harness({ mode: 'single', concurrency: 5 });
    h.submit(1);
    h.update({ mode: 'parallel' });
    expect(h.q.state).toBe('switching_modes');
    h.submit(2, { targets: ['b'] });
    h.submit(3);
    expect(h.state(2)).toBe('PENDING');
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1]]);

    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.q.state).toBe('running');
    expect(h.q.settings.mode).toBe('parallel');
    h.targetsKnown(2);
    // #2 has impacted targets and starts; #3 has none for its head and is not ready.
    expect(h.state(2)).toBe('TESTING');
    expect(h.state(3)).toBe('NOT_READY');
    expect(h.entry(3).history.at(-1)!.reason.message).toMatch(/impacted targets/);
  });

  test('parallel -> single: lanes in flight merge independently, then one chain holds every PR ahead', () => {
    const h = new Harness({ mode: 'parallel', concurrency: 5 });
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'] });
    h.targetsKnown(1);
    h.targetsKnown(2);
    expect(h.prsOf(h.runOf(2))).toEqual([2]);
    h.update({ mode: 'single' });
    expect(h.q.state).toBe('switching_modes');

    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    expect(h.q.state).toBe('switching_modes');
    h.submit(3, { targets: ['c'] });
    h.submit(4, { targets: ['d'] });
    expect(h.liveRuns()).toHaveLength(1);

    h.pass(1);
    expect(h.q.settings.mode).toBe('single');
    expect(h.q.state).toBe('running');
    // Disjoint targets, but single mode tests #4 on top of #3.
    expect(h.prsOf(h.runOf(4))).toEqual([3, 4]);
  });

  test('a run that fails during the switch makes a suspect; no rerun starts until the new mode applies', () => {
    const h = new Harness({ mode: 'single', concurrency: 5, flakeRetries: 1, pendingFailureDepth: 1, canOptimisticallyMerge: true });
    h.submit(1);
    h.submit(2);
    h.update({ mode: 'parallel' });
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    // #2's run still holds #1 (its flake evidence) and is the only run in flight: no rerun of #1.
    expect(h.liveRuns().map((r) => h.prsOf(r))).toEqual([[1, 2]]);
    expect(h.q.state).toBe('switching_modes');
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.q.settings.mode).toBe('parallel');
  });

  test('a suspect left when the switch completes is rerun in the new mode', () => {
    const h = new Harness({ mode: 'single', concurrency: 5, flakeRetries: 1 });
    h.submit(1);
    h.update({ mode: 'parallel' });
    h.fail(1);
    expect(h.q.settings.mode).toBe('parallel');
    expect(h.runOf(1).attempt).toBe(1);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('a paused queue switches (passing PRs merge meanwhile) and returns to paused', () => {
    const h = new Harness({ mode: 'single', concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.setState('paused');
    h.update({ mode: 'parallel' });
    expect(h.q.state).toBe('switching_modes');
    expect(h.q.switching).toEqual({ toMode: 'parallel', returnTo: 'paused' });
    h.pass(1);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    expect(h.q.state).toBe('paused');
    expect(h.q.settings.mode).toBe('parallel');
  });

  test('a state asked for during the switch is where the queue returns', () => {
    const h = new Harness({ mode: 'single' });
    h.submit(1);
    h.update({ mode: 'parallel' });
    h.setState('paused');
    expect(h.q.state).toBe('switching_modes');
    h.pass(1);
    expect(h.q.state).toBe('paused');
    expect(h.q.settings.mode).toBe('parallel');
  });

  test('switching back before the switch finished cancels it and nothing restarts', () => {
    const h = new Harness({ mode: 'single', concurrency: 2 });
    h.submit(1);
    h.submit(2);
    const runs = h.liveRuns().map((r) => r.id);
    h.update({ mode: 'parallel' });
    h.update({ mode: 'single' });
    expect(h.q.state).toBe('running');
    expect(h.q.switching).toBeNull();
    expect(h.liveRuns().map((r) => r.id)).toEqual(runs);
    h.pass(1);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
  });
});

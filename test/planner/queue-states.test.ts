import { Harness } from './harness.js';

describe('queue states', () => {
  test('paused: submissions wait, no new runs, no merges; results in flight are recorded', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.setState('paused');
    h.submit(2);
    expect(h.state(2)).toBe('PENDING');
    expect(h.liveRuns()).toHaveLength(1);
    h.pass(1);
    expect(h.state(1)).toBe('TESTS_PASSED');
    expect(h.merges).toEqual([]);
    h.setState('running');
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('TESTING');
  });

  test('draining: runs in flight finish and passing PRs merge, then the queue is paused', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.submit(2);
    h.setState('draining');
    expect(h.q.state).toBe('draining');
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.state(2)).toBe('PENDING');
    expect(h.q.state).toBe('paused');
  });

  test('switching_modes: as draining, then the new mode applies and the state returns', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.update({ mode: 'parallel' });
    expect(h.q.state).toBe('switching_modes');
    expect(h.q.settings.mode).toBe('single');
    h.pass(1);
    expect(h.q.state).toBe('running');
    expect(h.q.settings.mode).toBe('parallel');
    expect(h.q.switching).toBeNull();
  });

  test('a paused suspect is not rerun until the queue runs again', () => {
    const h = new Harness({ concurrency: 1, flakeRetries: 1 });
    h.submit(1);
    h.setState('paused');
    h.fail(1);
    expect(h.state(1)).toBe('PENDING_FAILURE');
    expect(h.liveRuns()).toEqual([]);
    h.setState('running');
    expect(h.runOf(1).attempt).toBe(1);
  });
});

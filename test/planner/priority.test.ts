import { Harness } from './harness.js';

describe('rule 11: priority', () => {
  test('a higher priority goes ahead of PENDING units but behind units already testing', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.submit(2);
    h.submit(3, { priority: 'high' });
    expect(h.order()).toEqual([1, 3, 2]);
    expect(h.state(1)).toBe('TESTING');
    expect(h.entry(1).history).toHaveLength(3);
  });

  test('equal priorities keep the order in which they became ready; low goes last', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.submit(2, { priority: 'low' });
    h.submit(3, { priority: 'high' });
    h.submit(4, { priority: 'high' });
    h.submit(5);
    expect(h.order()).toEqual([1, 3, 4, 5, 2]);
  });

  test('urgent goes ahead of testing units and restarts those it passes (urgent_preemption)', () => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1);
    h.submit(2);
    h.submit(3, { priority: 'urgent' });
    expect(h.order()).toEqual([3, 1, 2]);
    expect(h.entry(3).priorityValue).toBe(0);
    expect(h.prsOf(h.runOf(3))).toEqual([3]);
    expect(h.prsOf(h.runOf(1))).toEqual([3, 1]);
    expect(h.prsOf(h.runOf(2))).toEqual([3, 1, 2]);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('urgent_preemption');
  });

  test('urgent stays behind what is already merging and behind earlier urgent units', () => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1, { priority: 'urgent' });
    h.submit(2, { priority: 'urgent' });
    expect(h.order()).toEqual([1, 2]);
    expect(h.entry(1).history.map((t) => t.reason.code)).not.toContain('urgent_preemption');
  });
});

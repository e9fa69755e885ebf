import { applyActions, archivable, nextWakeUp, plan } from '../../src/planner/index.js';
import { Harness } from './harness.js';
import { emptyQueue, minutesAfter, queueWithPrs, submitPr, T0 } from './builders.js';

describe('plan() is pure and reaches a fixed point', () => {
  test('same snapshot and time, same actions; applying them leaves nothing to do', () => {
    let q = emptyQueue({ concurrency: 3 });
    for (const n of [1, 2, 3, 4]) q = submitPr(q, n, T0).queue;
    const frozen = JSON.stringify(q);
    const a = plan({ queue: q, targets: new Map() }, T0);
    const b = plan({ queue: q, targets: new Map() }, T0);
    expect(a).toEqual(b);
    expect(JSON.stringify(q)).toBe(frozen);
    const next = applyActions(q, a, T0);
    expect(next.version).toBe(q.version);
    expect(plan({ queue: next, targets: new Map() }, T0)).toEqual([]);
    expect(next.runs.map((r) => r.status)).toEqual(['creating', 'creating', 'creating']);
  });

  test('run and unit ids follow from the queue id and its sequence', () => {
    let q = emptyQueue();
    q = submitPr(q, 1, T0).queue;
    const a = applyActions(q, plan({ queue: q, targets: new Map() }, T0), T0);
    const b = applyActions(q, plan({ queue: q, targets: new Map() }, T0), T0);
    expect(a.runs[0]!.id).toBe(b.runs[0]!.id);
    expect(a.nextSeq).toBeGreaterThan(q.nextSeq);
  });
});

describe('nextWakeUp', () => {
  test('is the timeout of the earliest run in flight, and null with nothing in flight', () => {
    const h = new Harness({ testingTimeoutMinutes: 45, concurrency: 2 });
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)).toBeNull();
    h.submit(1);
    h.advance(10);
    h.submit(2);
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)).toEqual(minutesAfter(T0, 45));
    h.pass(1);
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)).toEqual(minutesAfter(T0, 55));
  });
});

describe('archivable', () => {
  test('moves out ended entries and cleaned-up runs no longer needed, keeping what live runs hold', () => {
    const h = new Harness({ concurrency: 2 });
    h.submit(1);
    h.submit(2);
    h.pass(1);
    const old = archivable(h.q);
    // 1 merged, but the live run of 2 holds it: both stay until that run is done.
    expect(old.entries).toEqual([]);
    expect(old.runs.map((r) => h.prsOf(r))).toEqual([[1]]);
    h.pass(2);
    const later = archivable(h.q);
    expect(later.entries.map((e) => e.prNumber).sort()).toEqual([1, 2]);
    expect(later.runs).toHaveLength(2);
  });

  test('never moves out a run whose branch is not deleted yet', () => {
    let q = emptyQueue();
    q = submitPr(q, 1, T0).queue;
    q = applyActions(q, plan({ queue: q, targets: new Map() }, T0), T0);
    q = { ...q, runs: q.runs.map((r) => ({ ...r, status: 'cancelled' as const })) };
    expect(archivable(q).runs).toEqual([]);
  });
});

// How plan() scales is measured by `npm run bench:planner`, not asserted here: a timed unit test fails
// on a busy machine and proves nothing on a quiet one.
describe('scale', () => {
  test('a queue of 10,000 entries is planned whole: every unit placed, `concurrency` runs started', () => {
    let q = queueWithPrs(10000, { concurrency: 50 });
    q = applyActions(q, plan({ queue: q, targets: new Map() }, T0), T0);
    expect(q.units).toHaveLength(10000);
    expect(q.runs).toHaveLength(50);
    expect(plan({ queue: q, targets: new Map() }, minutesAfter(T0, 1))).toEqual([]);
  });
});

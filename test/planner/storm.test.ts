import { queueEvents } from '../../src/events/queue-events.js';
import { toQueueRecord } from '../../src/records/queue-record.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { nextWakeUp } from '../../src/planner/index.js';
import { Harness } from './harness.js';

/**
 * Storms (docs/queue-rules.md, "Storms"; src/planner/phases/storm.ts): a head that fails on every run
 * and is put back at the head each time (a bot re-enqueues it as urgent). Runs holding #1 fail after
 * 2 minutes of virtual time; the others would pass after 20. Ten runs end within 30 minutes and
 * nothing merges: the queue is in a storm, says so once, and names #1.
 */
function chronicHead(settings = {}) {
  const h = new Harness({ concurrency: 3, flakeRetries: 1, ...settings });
  const events: string[] = [];
  const step = (resubmit: boolean) => {
    const before: QueueDoc = h.q;
    if (resubmit && h.state(1) === 'FAILED') h.submit(1, { priority: 'urgent' });
    for (const run of h.liveRuns()) {
      if (!run.testBranchSha) continue;
      const age = (h.now.getTime() - Date.parse(run.createdAt)) / 60_000;
      const bad = run.prs.some((p) => p.prNumber === 1);
      if (bad && age >= 2) h.report(run, 'failure');
      else if (!bad && age >= 20) h.report(run, 'success');
    }
    h.advance(1);
    events.push(...queueEvents(before, h.q, h.now.toISOString()).map((e) => e.type).filter((t) => t.startsWith('queue.storm')));
  };
  h.submit(1);
  h.submit(2);
  h.submit(3);
  return { h, events, step };
}

describe('storms', () => {
  test('a head failing on every run: 10 runs in 30 minutes with nothing merged is a storm, said once, naming #1', () => {
    const { h, events, step } = chronicHead();
    for (let i = 0; i < 30; i++) step(true);
    expect(h.merges).toEqual([]);
    expect(events).toEqual(['queue.storm_started']);
    const storm = toQueueRecord(h.q, h.now).storm;
    expect(storm).toMatchObject({ minutes: 30, cause: { prNumber: 1, ciErrors: 0, flakyTests: [] } });
    expect(storm!.runs).toBeGreaterThanOrEqual(10);
    expect(storm!.cause.prFailures).toBeGreaterThanOrEqual(10);
    expect(storm!.message).toMatch(/^storm: \d+ runs ended in 30 minutes and nothing merged; #1 failed \d+ of them/);
    const ended = h.q.runs.filter((r) => r.finishedAt && Date.parse(r.finishedAt) <= Date.parse(storm!.since) && r.status !== 'cancelled');
    expect(ended.length).toBe(10);
  });

  test('the storm ends when something merges', () => {
    const { h, events, step } = chronicHead();
    for (let i = 0; i < 30; i++) step(true);
    // #1's author gives up: #2 and #3 are tested without it and merge.
    for (let i = 0; i < 30; i++) step(false);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3]);
    expect(events).toEqual(['queue.storm_started', 'queue.storm_ended']);
    expect(h.q.storm).toBeNull();
  });

  test('a storm with no run ending any more ends as its runs leave the window: the planner wakes the engine then', () => {
    const { h, events, step } = chronicHead();
    for (let i = 0; i < 30; i++) step(true);
    expect(h.q.storm).not.toBeNull();
    // Nothing ends any more (the runs in flight are long): the next wake-up is the storm's end.
    for (const run of h.liveRuns()) h.q = { ...h.q, runs: h.q.runs.map((r) => (r.id === run.id ? { ...r, createdAt: h.now.toISOString() } : r)) };
    const ends = h.q.stormWatch!.ends;
    const expected = Date.parse(ends[ends.length - 10]!.at) + 30 * 60_000 + 1;
    const wake = nextWakeUp({ queue: h.q, targets: new Map() }, h.now);
    expect(wake?.getTime()).toBe(expected);
    const before = h.q;
    h.advance((expected - h.now.getTime()) / 60_000);
    expect(h.q.storm).toBeNull();
    expect(events).toEqual(['queue.storm_started']);
    expect(queueEvents(before, h.q, h.now.toISOString()).map((e) => e.type)).toContain('queue.storm_ended');
  });

  test('stormPause: during the storm no run is started past the head', () => {
    const { h, step } = chronicHead({ stormPause: true });
    for (let i = 0; i < 30; i++) step(true);
    const since = h.q.storm!.since;
    const during = h.q.runs.filter((r) => r.createdAt >= since);
    expect(during.length).toBeGreaterThan(0);
    // Each is the head's alone: none is built on a PR ahead of it.
    expect(during.filter((r) => r.dependencyEntryIds.length > 0)).toEqual([]);
    // Without the pause, runs of #2 and #3 on top of #1 keep starting (and failing with it).
    const { h: free, step: freeStep } = chronicHead();
    for (let i = 0; i < 30; i++) freeStep(true);
    const freeSince = free.q.storm!.since;
    expect(free.q.runs.filter((r) => r.createdAt >= freeSince && r.dependencyEntryIds.length > 0).length).toBeGreaterThan(0);
    expect(h.q.runs.length).toBeLessThan(free.q.runs.length);
  });

  test('stormPause: once the failing head is gone, the next head is tested alone until something merges', () => {
    const { h, events, step } = chronicHead({ stormPause: true });
    for (let i = 0; i < 30; i++) step(true);
    for (let i = 0; i < 60; i++) step(false);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 3]);
    expect(events).toEqual(['queue.storm_started', 'queue.storm_ended']);
  });
});

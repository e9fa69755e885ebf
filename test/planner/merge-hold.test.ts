import fc from 'fast-check';
import { mergeHold, passesHold, type Freeze } from '../../src/domain/merge-hold.js';
import type { MergeWindows } from '../../src/domain/merge-window.js';
import { nextWakeUp } from '../../src/planner/index.js';
import { Harness } from './harness.js';

// T0 (builders.ts) is Sunday 2026-11-22 10:00 UTC: 11:00 in Berlin, outside office hours.
const OFFICE_HOURS: MergeWindows = { timeZone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }] };
const MONDAY_9_BERLIN = '2026-11-23T08:00:00.000Z';

function freeze(h: Harness, f: Partial<Freeze> = {}): void {
  h.q = { ...h.q, freeze: { startedAt: h.now.toISOString(), endsAt: null, reason: 'release 4.2', by: 'ops', allowPullRequests: [], ...f } };
  h.settle();
}

function unfreeze(h: Harness): void {
  h.q = { ...h.q, freeze: null };
  h.settle();
}

describe('merge windows and freezes: a held queue tests but merges nothing', () => {
  test('a passed run waits unmerged while frozen, saying why, and merges once unfrozen', () => {
    const h = new Harness();
    freeze(h);
    h.submit(1);
    expect(h.state(1)).toBe('TESTING');
    h.pass(1);
    expect(h.merges).toEqual([]);
    expect(h.state(1)).toBe('TESTS_PASSED');
    expect(h.entry(1).reason).toEqual({ code: 'merge_held', message: 'tests passed; frozen: release 4.2' });
    unfreeze(h);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('a freeze with an end is lifted at its end: the queue merges then, and nextWakeUp is that time', () => {
    const h = new Harness();
    const endsAt = new Date(h.now.getTime() + 30 * 60_000).toISOString();
    freeze(h, { endsAt });
    h.submit(1);
    h.pass(1);
    expect(h.entry(1).reason?.message).toBe('tests passed; frozen until 2026-11-22 10:30 UTC: release 4.2');
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)?.toISOString()).toBe(endsAt);
    h.advance(29);
    expect(h.merges).toEqual([]);
    h.advance(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    expect(h.q.freeze).toBeNull();
  });

  test('an urgent PR passes the freeze; a PR the freeze names does too; the others wait in queue order', () => {
    const h = new Harness({ concurrency: 3 });
    freeze(h, { allowPullRequests: [2] });
    h.submit(1, { priority: 'urgent' });
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
    h.submit(2);
    h.submit(3);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    h.pass(3);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
    unfreeze(h);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2, 3]);
  });

  test('an urgent PR goes ahead of a passed PR the freeze holds and merges; the held one is retested on top of it', () => {
    const h = new Harness();
    freeze(h);
    h.submit(1);
    h.pass(1);
    h.submit(2, { priority: 'urgent' });
    expect(h.order()).toEqual([2, 1]);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    h.pass(1);
    expect(h.state(1)).toBe('TESTS_PASSED');
    unfreeze(h);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 1]);
  });

  test('a held PR holds the PRs behind it, even one the freeze names (it was tested on top of it)', () => {
    const h = new Harness({ concurrency: 2 });
    freeze(h, { allowPullRequests: [2] });
    h.submit(1);
    h.submit(2);
    h.pass(1);
    h.pass(2);
    expect(h.merges).toEqual([]);
    unfreeze(h);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1, 2]);
  });

  test('outside its merge windows nothing merges; the engine is woken when they open, and it merges then', () => {
    const h = new Harness({ mergeWindows: OFFICE_HOURS });
    h.submit(1);
    h.pass(1);
    expect(h.merges).toEqual([]);
    expect(h.entry(1).reason?.message).toBe('tests passed; outside merge window until 2026-11-23 08:00 UTC');
    expect(nextWakeUp({ queue: h.q, targets: new Map() }, h.now)?.toISOString()).toBe(MONDAY_9_BERLIN);
    h.now = new Date(Date.parse(MONDAY_9_BERLIN) - 60_000);
    h.settle();
    expect(h.merges).toEqual([]);
    h.advance(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('inside its merge windows it merges as usual', () => {
    const h = new Harness({ mergeWindows: OFFICE_HOURS });
    h.now = new Date('2026-11-24T12:00:00.000Z'); // Tuesday 13:00 in Berlin
    h.submit(1);
    h.pass(1);
    expect(h.merges.map((m) => m.prNumber)).toEqual([1]);
  });

  test('holdMode start: while held no run starts, except for a PR that passes the hold', () => {
    const h = new Harness({ holdMode: 'start', concurrency: 2 });
    freeze(h);
    h.submit(1);
    expect(h.state(1)).toBe('PENDING');
    expect(h.liveRuns()).toEqual([]);
    h.submit(2, { priority: 'urgent' });
    expect(h.state(2)).toBe('TESTING');
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    unfreeze(h);
    expect(h.state(1)).toBe('TESTING');
  });

  test('holdMode merge (the default) keeps testing while held', () => {
    const h = new Harness({ concurrency: 2 });
    freeze(h);
    h.submit(1);
    h.submit(2);
    expect([h.state(1), h.state(2)]).toEqual(['TESTING', 'TESTING']);
  });

  test('parallel mode: a held lane waits while a PR that passes the hold merges in its own lane', () => {
    const h = new Harness({ mode: 'parallel', concurrency: 2 });
    freeze(h);
    h.submit(1, { targets: ['a'] });
    h.submit(2, { targets: ['b'], priority: 'urgent' });
    h.pass(1);
    h.pass(2);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2]);
    unfreeze(h);
    expect(h.merges.map((m) => m.prNumber)).toEqual([2, 1]);
  });
});

type Step = { kind: 'submit'; urgent: boolean } | { kind: 'pass' } | { kind: 'fail' } | { kind: 'freeze'; allow: number } | { kind: 'unfreeze' } | { kind: 'advance'; minutes: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('submit' as const), urgent: fc.boolean() }),
  fc.constant({ kind: 'pass' as const }),
  fc.constant({ kind: 'fail' as const }),
  fc.record({ kind: fc.constant('freeze' as const), allow: fc.integer({ min: 0, max: 8 }) }),
  fc.constant({ kind: 'unfreeze' as const }),
  fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 24 * 60 }) }),
);

test('property: nothing merges while held, except urgent PRs and those the freeze names', () => {
  fc.assert(
    fc.property(fc.constantFrom('single', 'parallel'), fc.constantFrom('merge', 'start'), fc.boolean(), fc.array(step, { minLength: 5, maxLength: 40 }), (mode, holdMode, windows, steps) => {
      const h = new Harness({ mode: mode as 'single' | 'parallel', holdMode: holdMode as 'merge' | 'start', concurrency: 3, ...(windows ? { mergeWindows: OFFICE_HOURS } : {}) });
      h.onMerge = (q, e) => {
        const hold = mergeHold(q, h.now);
        if (hold) expect({ pr: e.prNumber, passes: passesHold(hold, e) }).toEqual({ pr: e.prNumber, passes: true });
      };
      let next = 1;
      for (const s of steps) {
        const live = h.liveRuns()[0];
        if (s.kind === 'submit') h.submit(next++, { ...(s.urgent ? { priority: 'urgent' as const } : {}), ...(mode === 'parallel' ? { targets: [`t${next % 3}`] } : {}) });
        else if ((s.kind === 'pass' || s.kind === 'fail') && live?.testBranchSha) h.report(live, s.kind === 'pass' ? 'success' : 'failure');
        else if (s.kind === 'freeze') freeze(h, { allowPullRequests: s.allow ? [s.allow] : [] });
        else if (s.kind === 'unfreeze') unfreeze(h);
        else if (s.kind === 'advance') h.advance(s.minutes);
      }
    }),
    { numRuns: Number(process.env.PLANNER_RUNS ?? 200) },
  );
});

import { estimateMergeTimes, type CiHistory } from '../../src/domain/eta.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import { defaultSettings, type QueueSettings } from '../../src/domain/settings.js';
import type { PrState } from '../../src/domain/states.js';

/** The ETA under a hold (src/domain/eta-hold.ts): merge windows and holdMode, on a table of queues. */
const NOW = new Date('2026-11-23T06:00:00.000Z'); // a Monday, 07:00 in Berlin
const MIN = 60_000;
const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN).toISOString();
const tenMinutes: CiHistory = { medianRunMs: 10 * MIN, failureRate: 0, flakeRate: 0 };
const OFFICE_HOURS = { timeZone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }] } as QueueSettings['mergeWindows'];

type Doc = Pick<QueueDoc, 'id' | 'state' | 'settings' | 'entries' | 'units' | 'runs' | 'freeze'>;

/** One PR per unit in queue order; the first has a run that started `runningFor` minutes ago. */
function queue(states: PrState[], settings: Partial<QueueSettings>, opts: { runningFor?: number; priorities?: number[] } = {}): Doc {
  const entries = states.map((state, i) => ({ id: `e${i}`, state, prNumber: i + 1, priorityValue: opts.priorities?.[i] ?? 100 }) as Entry);
  const units = entries.map((e, i) => ({ id: `u${i}`, createdAt: NOW.toISOString(), entryIds: [e.id] }));
  const runs =
    opts.runningFor === undefined
      ? []
      : [{ id: 'r0', unitId: 'u0', kind: 'main', status: 'pending', createdAt: at(-opts.runningFor), attempt: 0, dependencyEntryIds: [] } as unknown as TestRun];
  return { id: 'q1', state: 'running', settings: defaultSettings(settings), entries, units, runs, freeze: null };
}

const estimates = (doc: Doc) => {
  const all = estimateMergeTimes(doc, tenMinutes, NOW);
  return doc.entries.map((e) => ({ at: all.get(e.id)?.estimatedMergeAt ?? all.get(e.id)?.reason?.code, hold: all.get(e.id)?.hold?.message ?? null }));
};

const WINDOW_OPENS = '2026-11-23T08:00:00.000Z'; // 09:00 Berlin
const HELD = 'outside merge window until 2026-11-23 08:00 UTC';

test.each([
  {
    name: 'outside the windows (holdMode merge): tests run now, merges wait for the opening',
    doc: queue(['TESTING', 'PENDING'], { mergeWindows: OFFICE_HOURS }, { runningFor: 4 }),
    want: [{ at: WINDOW_OPENS, hold: HELD }, { at: WINDOW_OPENS, hold: HELD }],
  },
  {
    name: 'holdMode start: a run not started yet is pushed back by the length of the hold; one in flight merges at the opening',
    doc: queue(['TESTING', 'PENDING'], { mergeWindows: OFFICE_HOURS, holdMode: 'start' }, { runningFor: 4 }),
    want: [{ at: WINDOW_OPENS, hold: HELD }, { at: at(120 + 16), hold: HELD }],
  },
  {
    name: 'an urgent PR passes the hold and keeps its estimate',
    doc: queue(['PENDING'], { mergeWindows: OFFICE_HOURS }, { priorities: [0] }),
    want: [{ at: at(10), hold: null }],
  },
  {
    name: 'inside the windows nothing moves',
    doc: queue(['PENDING'], { mergeWindows: { ...OFFICE_HOURS!, windows: [{ days: ['mon'], start: '00:00', end: '24:00' }] } as QueueSettings['mergeWindows'] }),
    want: [{ at: at(10), hold: null }],
  },
])('$name', ({ doc, want }) => {
  expect(estimates(doc)).toEqual(want);
});

test('a freeze with no end: no estimate, queue_held, naming it; an allowed PR passes', () => {
  const doc = { ...queue(['PENDING', 'PENDING'], {}), freeze: { startedAt: at(-60), endsAt: null, reason: 'incident', by: 'ops', allowPullRequests: [2] } };
  const all = estimateMergeTimes(doc, tenMinutes, NOW);
  expect(all.get('e0')).toEqual({
    estimatedMergeAt: null,
    estimatedMergeRange: null,
    reason: { code: 'queue_held', message: 'held: frozen: incident; no estimate until it is lifted' },
    hold: { message: 'frozen: incident', endsAt: null },
  });
  expect(all.get('e1')).toMatchObject({ estimatedMergeAt: at(20), reason: null });
  expect(all.get('e1')!.hold).toBeUndefined();
});

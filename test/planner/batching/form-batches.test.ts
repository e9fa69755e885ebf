import fc from 'fast-check';
import { formBatches, type BatchCandidate, type BatchSettings } from '../../../src/planner/batching/index.js';

const T0 = Date.parse('2024-05-01T12:00:00.000Z');
const minutes = (m: number) => new Date(T0 + m * 60_000);

/** Candidates named by letter, ready at the given minute offsets; a `!` suffix marks noBatch. */
function queue(...specs: [string, number][]): BatchCandidate[] {
  return specs.map(([name, readyMinute]) => ({
    id: name.replace('!', ''),
    noBatch: name.endsWith('!'),
    readyAt: minutes(readyMinute),
  }));
}

const batching = (batchingMinSize: number, batchingMaxWaitTimeMinutes = 5): BatchSettings => ({
  batch: true,
  batchingMinSize,
  batchingMaxWaitTimeMinutes,
});

/** A stack of `n` entries kept whole (`s1`, `s2`, ...), ready at minute 0. */
function stack(name: string, n: number): BatchCandidate {
  const entryIds = Array.from({ length: n }, (_, i) => `${name}${i + 1}`);
  return { id: entryIds[0]!, entryIds, noBatch: false, readyAt: minutes(0) };
}

describe('formBatches keeps a stack whole (size 4, up to 6 for a stack)', () => {
  const cases: [string, BatchCandidate[], { entryIds: string[]; trigger: string }[], string[]][] = [
    ['a stack of 3 after one entry fills a batch of 4', [...queue(['a', 0]), stack('s', 3)], [{ entryIds: ['a', 's1', 's2', 's3'], trigger: 'full' }], []],
    ['a stack of 4 after two entries: a batch of 6', [...queue(['a', 0], ['b', 0]), stack('s', 4)], [{ entryIds: ['a', 'b', 's1', 's2', 's3', 's4'], trigger: 'full' }], []],
    [
      'a stack of 4 after three entries: the three start without it',
      [...queue(['a', 0], ['b', 0], ['c', 0]), stack('s', 4)],
      [
        { entryIds: ['a', 'b', 'c'], trigger: 'before_whole_unit' },
        { entryIds: ['s1', 's2', 's3', 's4'], trigger: 'full' },
      ],
      [],
    ],
    [
      'a stack of 7: a batch of its own, the entry ahead starts alone, the one behind waits',
      [...queue(['a', 0]), stack('s', 7), ...queue(['b', 0])],
      [
        { entryIds: ['a'], trigger: 'before_whole_unit' },
        { entryIds: ['s1', 's2', 's3', 's4', 's5', 's6', 's7'], trigger: 'whole_unit' },
      ],
      ['b'],
    ],
    ['a stack of 2 waits at the tail like its entries', [stack('s', 2)], [], ['s1', 's2']],
  ];
  it.each(cases)('%s', (_name, candidates, start, waiting) => {
    const result = formBatches(candidates, batching(4, 5), minutes(1));
    expect(result.start).toEqual(start);
    expect(result.waiting).toEqual(waiting);
  });
});

describe('formBatches', () => {
  it('starts a full batch at once, without waiting', () => {
    const result = formBatches(queue(['a', 0], ['b', 0], ['c', 0]), batching(3), minutes(0));
    expect(result.start).toEqual([{ entryIds: ['a', 'b', 'c'], trigger: 'full' }]);
    expect(result.waiting).toEqual([]);
    expect(result.nextDueAt).toBeNull();
  });

  it('holds a partial batch until its oldest entry has waited the max wait, then starts it', () => {
    const pending = queue(['a', 0], ['b', 2]);
    const early = formBatches(pending, batching(3, 5), minutes(4.99));
    expect(early.start).toEqual([]);
    expect(early.waiting).toEqual(['a', 'b']);
    expect(early.nextDueAt).toEqual(minutes(5));

    const due = formBatches(pending, batching(3, 5), minutes(5));
    expect(due.start).toEqual([{ entryIds: ['a', 'b'], trigger: 'max_wait' }]);
    expect(due.waiting).toEqual([]);
    expect(due.nextDueAt).toBeNull();
  });

  it('measures the wait from the oldest entry even when priority put a newer one first', () => {
    const result = formBatches(queue(['urgent', 4], ['old', 1]), batching(3, 5), minutes(5));
    expect(result.waiting).toEqual(['urgent', 'old']);
    expect(result.nextDueAt).toEqual(minutes(6));
  });

  it('cuts full batches from the front and leaves only the tail waiting', () => {
    const pending = queue(['a', 0], ['b', 0], ['c', 0], ['d', 0], ['e', 1]);
    const result = formBatches(pending, batching(2, 10), minutes(3));
    expect(result.start.map((b) => b.entryIds)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(result.waiting).toEqual(['e']);
    expect(result.nextDueAt).toEqual(minutes(11));
  });

  it('starts a noBatch entry alone at once', () => {
    const result = formBatches(queue(['solo!', 0]), batching(4, 60), minutes(0));
    expect(result.start).toEqual([{ entryIds: ['solo'], trigger: 'no_batch' }]);
    expect(result.nextDueAt).toBeNull();
  });

  it('lets a noBatch entry in the middle split the queue without blocking the entries behind it', () => {
    const pending = queue(['a', 0], ['solo!', 0], ['b', 0], ['c', 0], ['d', 0], ['e', 0]);
    const result = formBatches(pending, batching(3, 60), minutes(1));
    expect(result.start).toEqual([
      { entryIds: ['a'], trigger: 'before_no_batch' },
      { entryIds: ['solo'], trigger: 'no_batch' },
      { entryIds: ['b', 'c', 'd'], trigger: 'full' },
    ]);
    expect(result.waiting).toEqual(['e']);
  });

  it('makes every entry its own batch with min size 1, and with batching off', () => {
    const pending = queue(['a', 0], ['b', 0], ['c', 0]);
    for (const settings of [batching(1, 60), { ...batching(4, 60), batch: false }]) {
      const result = formBatches(pending, settings, minutes(0));
      expect(result.start).toEqual([
        { entryIds: ['a'], trigger: 'full' },
        { entryIds: ['b'], trigger: 'full' },
        { entryIds: ['c'], trigger: 'full' },
      ]);
      expect(result.waiting).toEqual([]);
    }
  });

  it('starts a partial batch at once when the max wait is 0', () => {
    const result = formBatches(queue(['a', 0]), batching(4, 0), minutes(0));
    expect(result.start).toEqual([{ entryIds: ['a'], trigger: 'max_wait' }]);
  });

  it('returns nothing for an empty queue', () => {
    expect(formBatches([], batching(4), minutes(0))).toEqual({ start: [], waiting: [], nextDueAt: null });
  });
});

const arbitraryPending = fc
  .array(
    fc.record({
      noBatch: fc.integer({ min: 0, max: 4 }).map((roll) => roll === 0),
      readyMinute: fc.integer({ min: 0, max: 30 }),
    }),
    { maxLength: 40 },
  )
  .map((specs) =>
    specs.map(({ noBatch, readyMinute }, i) => ({ id: `e${i}`, noBatch, readyAt: minutes(readyMinute) })),
  );
const arbitrarySettings = fc.record({
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 1, max: 8 }),
  batchingMaxWaitTimeMinutes: fc.integer({ min: 0, max: 20 }),
});
const arbitraryNow = fc.integer({ min: 0, max: 60 }).map(minutes);

describe('formBatches properties', () => {
  it('partitions the candidates in queue order: started batches, then the waiting tail', () => {
    fc.assert(
      fc.property(arbitraryPending, arbitrarySettings, arbitraryNow, (pending, settings, now) => {
        const { start, waiting } = formBatches(pending, settings, now);
        expect([...start.flatMap((b) => b.entryIds), ...waiting]).toEqual(pending.map((c) => c.id));
      }),
      { numRuns: 500 },
    );
  });

  it('respects the size limit and never batches a noBatch entry with another', () => {
    fc.assert(
      fc.property(arbitraryPending, arbitrarySettings, arbitraryNow, (pending, settings, now) => {
        const noBatch = new Set(pending.filter((c) => c.noBatch).map((c) => c.id));
        const limit = settings.batch ? settings.batchingMinSize : 1;
        for (const batch of formBatches(pending, settings, now).start) {
          expect(batch.entryIds.length).toBeGreaterThanOrEqual(1);
          expect(batch.entryIds.length).toBeLessThanOrEqual(limit);
          if (batch.entryIds.some((id) => noBatch.has(id))) expect(batch.entryIds).toHaveLength(1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('starts a short batch only when it is due, cut off by a noBatch entry, or a noBatch entry itself', () => {
    fc.assert(
      fc.property(arbitraryPending, arbitrarySettings, arbitraryNow, (pending, settings, now) => {
        const byId = new Map(pending.map((c, i) => [c.id, { ...c, index: i }]));
        const limit = settings.batch ? settings.batchingMinSize : 1;
        for (const batch of formBatches(pending, settings, now).start) {
          if (batch.entryIds.length === limit) continue;
          const members = batch.entryIds.map((id) => byId.get(id)!);
          const oldest = Math.min(...members.map((m) => m.readyAt.getTime()));
          const due = oldest + settings.batchingMaxWaitTimeMinutes * 60_000 <= now.getTime();
          const next = pending[members.at(-1)!.index + 1];
          const cutOff = next?.noBatch === true;
          expect(due || cutOff || members[0]!.noBatch).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never un-starts a batch as time passes, and starts the waiting group exactly at nextDueAt', () => {
    fc.assert(
      fc.property(
        arbitraryPending,
        arbitrarySettings,
        arbitraryNow,
        fc.integer({ min: 0, max: 30 }),
        (pending, settings, now, laterMinutes) => {
          const before = formBatches(pending, settings, now);
          const later = formBatches(pending, settings, new Date(now.getTime() + laterMinutes * 60_000));
          expect(later.start.slice(0, before.start.length)).toEqual(before.start);
          if (before.waiting.length === 0) {
            expect(before.nextDueAt).toBeNull();
            return;
          }
          expect(before.nextDueAt!.getTime()).toBeGreaterThan(now.getTime());
          const atDue = formBatches(pending, settings, before.nextDueAt!);
          expect(atDue.waiting).toEqual([]);
          expect(atDue.start.at(-1)).toEqual({ entryIds: before.waiting, trigger: 'max_wait' });
          const justBefore = formBatches(pending, settings, new Date(before.nextDueAt!.getTime() - 1));
          expect(justBefore.waiting).toEqual(before.waiting);
        },
      ),
      { numRuns: 500 },
    );
  });
});

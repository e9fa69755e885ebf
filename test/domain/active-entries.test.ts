import fc from 'fast-check';
import { activeEntryOf, appendEntry } from '../../src/domain/active-entries.js';
import type { Entry } from '../../src/domain/entry.js';
import { isActive, type PrState } from '../../src/domain/states.js';

/**
 * The index behind a PR's active entry must answer what a scan of the same array answers, for every
 * array a queue ever had, whatever order arrays are made and looked at in (an old document may be
 * read again after its index moved to the next one).
 */

let seq = 0;
const entry = (prNumber: number, state: PrState): Entry => ({ id: `e${++seq}`, prNumber, state }) as Entry;
const scan = (entries: readonly Entry[], prNumber: number) => entries.find((e) => e.prNumber === prNumber && isActive(e.state));

test('a PR submitted, ended and submitted again is found at each step', () => {
  const first = appendEntry([], entry(7, 'NOT_READY'));
  expect(activeEntryOf(first, 7)?.id).toBe(first[0]!.id);
  const ended = first.map((e) => ({ ...e, state: 'MERGED' as PrState }));
  expect(activeEntryOf(ended, 7)).toBeUndefined();
  const again = appendEntry(ended, entry(7, 'NOT_READY'));
  expect(activeEntryOf(again, 7)?.id).toBe(again[1]!.id);
  // The older arrays still answer for themselves after their index moved on.
  expect(activeEntryOf(first, 7)?.id).toBe(first[0]!.id);
  expect(activeEntryOf(ended, 7)).toBeUndefined();
});

type Step = { kind: 'append'; from: number; pr: number; active: boolean } | { kind: 'end'; from: number; pr: number } | { kind: 'look'; at: number; pr: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), from: fc.nat(), pr: fc.integer({ min: 1, max: 6 }), active: fc.boolean() }),
  fc.record({ kind: fc.constant('end' as const), from: fc.nat(), pr: fc.integer({ min: 1, max: 6 }) }),
  fc.record({ kind: fc.constant('look' as const), at: fc.nat(), pr: fc.integer({ min: 1, max: 6 }) }),
);

test('property: every lookup in every version answers what a scan answers', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
      const versions: (readonly Entry[])[] = [[]];
      const pick = (n: number) => versions[n % versions.length]!;
      for (const s of steps) {
        if (s.kind === 'look') {
          const entries = pick(s.at);
          expect(activeEntryOf(entries, s.pr)).toBe(scan(entries, s.pr));
        } else if (s.kind === 'append') {
          const from = pick(s.from);
          // A queue never holds two active entries of one PR: submit appends only when there is none.
          if (s.active && scan(from, s.pr)) continue;
          versions.push(appendEntry(from, entry(s.pr, s.active ? 'PENDING' : 'CANCELLED')));
        } else {
          versions.push(pick(s.from).map((e) => (e.prNumber === s.pr && isActive(e.state) ? { ...e, state: 'FAILED' as PrState } : e)));
        }
      }
      for (const entries of versions) for (let pr = 1; pr <= 6; pr++) expect(activeEntryOf(entries, pr)).toBe(scan(entries, pr));
    }),
  );
});

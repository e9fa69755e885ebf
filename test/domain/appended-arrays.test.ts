import fc from 'fast-check';
import { AppendScope, appended, appendingInPlace, knownSharedPrefix } from '../../src/domain/appended-arrays.js';

/**
 * Diffs of queue documents (outbound events, the rows a commit writes) skip the prefix this module
 * says two arrays share, so it must never claim one they do not share, whatever order arrays are
 * made and compared in.
 */

const item = (n: number) => ({ n });

test('arrays appended one after another are known to begin with each other; a branch only with its parent', () => {
  const a = [item(1), item(2)];
  const b = appended(a, item(3));
  expect(b.map((x) => x.n)).toEqual([1, 2, 3]);
  expect(knownSharedPrefix(a, b)).toBe(2);
  expect(knownSharedPrefix(b, b)).toBe(3);
  const c = appended(b, item(4), item(5));
  expect(knownSharedPrefix(b, c)).toBe(3);
  expect(knownSharedPrefix(a, c)).toBe(2);
  // Never the other way round.
  expect(knownSharedPrefix(c, a)).toBeNull();
  // A branch: b appended to again; it and its new child are known, the old line is not.
  const d = appended(b, item(6));
  expect(knownSharedPrefix(b, d)).toBe(3);
  expect(knownSharedPrefix(c, d)).toBeNull();
  expect(knownSharedPrefix(d, c)).toBeNull();
  // A copy, even with the same items, is not known.
  expect(knownSharedPrefix(c, [...c])).toBeNull();
});

test('in a batch, an array the batch made is appended to in place; any other array is copied', () => {
  const stored = [item(1)];
  const batch = new AppendScope();
  const first = appendingInPlace(batch, () => appended(stored, item(2)));
  expect(first).not.toBe(stored);
  expect(stored).toHaveLength(1);
  const second = appendingInPlace(batch, () => appended(first, item(3)));
  expect(second).toBe(first);
  expect(second.map((x) => x.n)).toEqual([1, 2, 3]);
  expect(batch.inPlace.has(first)).toBe(true);
  expect(knownSharedPrefix(stored, second)).toBe(1);
  // Outside the batch, in another batch, or once frozen (stored), it is copied again.
  expect(appended(first, item(4))).not.toBe(first);
  const other = appendingInPlace(new AppendScope(), () => appended(first, item(5)));
  expect(other).not.toBe(first);
  const frozen = appendingInPlace(batch, () => appended(other, item(6)));
  Object.freeze(frozen);
  expect(appendingInPlace(batch, () => appended(frozen, item(7)))).not.toBe(frozen);
  expect(first.map((x) => x.n)).toEqual([1, 2, 3]);
});

type Step = { kind: 'append'; from: number } | { kind: 'appendInScope'; from: number } | { kind: 'copy'; from: number; replace: number } | { kind: 'compare'; a: number; b: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), from: fc.nat() }),
  fc.record({ kind: fc.constant('appendInScope' as const), from: fc.nat() }),
  fc.record({ kind: fc.constant('copy' as const), from: fc.nat(), replace: fc.nat() }),
  fc.record({ kind: fc.constant('compare' as const), a: fc.nat(), b: fc.nat() }),
);

test('property: a shared prefix is only ever claimed where every item is the same object', () => {
  fc.assert(
    fc.property(fc.array(step, { maxLength: 80 }), (steps) => {
      let made = 0;
      // One batch's scope: arrays made by its appends are appended to in place afterwards.
      const batch = new AppendScope();
      const versions: { n: number }[][] = [[]];
      const pick = (n: number) => versions[n % versions.length]!;
      const check = (a: readonly { n: number }[], b: readonly { n: number }[]) => {
        const shared = knownSharedPrefix(a, b);
        if (shared === null) return;
        expect(shared).toBe(a.length);
        expect(b.length).toBeGreaterThanOrEqual(a.length);
        for (let i = 0; i < a.length; i++) expect(b[i]).toBe(a[i]);
      };
      for (const s of steps) {
        if (s.kind === 'append') versions.push(appended(pick(s.from), item(++made)));
        else if (s.kind === 'appendInScope') versions.push(appendingInPlace(batch, () => appended(pick(s.from), item(++made))));
        else if (s.kind === 'copy') {
          const from = pick(s.from);
          versions.push(from.map((x, i) => (i === s.replace % Math.max(1, from.length) ? item(++made) : x)));
        } else check(pick(s.a), pick(s.b));
      }
      for (const a of versions) for (const b of versions) check(a, b);
    }),
    { numRuns: 500 },
  );
});

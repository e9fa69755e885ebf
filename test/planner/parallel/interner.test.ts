import fc from 'fast-check';
import { TargetInterner } from '../../../src/planner/parallel/interner.js';
import { intersects } from '../../../src/planner/parallel/target-set.js';

const targetName = fc.stringMatching(/^\/\/[a-c]{1,2}(\/[a-c]{1,2})?:[a-c]{1,2}$/);

describe('TargetInterner', () => {
  it('gives a name the same id every time and distinct names dense distinct ids', () => {
    const interner = new TargetInterner();
    const a = interner.intern('//app:server');
    const b = interner.intern('//lib/db:db');
    expect(interner.intern('//app:server')).toBe(a);
    expect(new Set([a, b])).toEqual(new Set([0, 1]));
    expect(interner.size).toBe(2);
    expect(interner.nameOf(b)).toBe('//lib/db:db');
  });

  it('looks names up without interning them', () => {
    const interner = new TargetInterner();
    interner.intern('//a:a');
    expect(interner.idOf('//a:a')).toBe(0);
    expect(interner.idOf('//b:b')).toBeUndefined();
    expect(interner.size).toBe(1);
  });

  it('refuses an id it never gave out', () => {
    const interner = new TargetInterner();
    interner.intern('//a:a');
    expect(() => interner.nameOf(1)).toThrow(RangeError);
    expect(() => interner.nameOf(-1)).toThrow(RangeError);
  });

  it('turns ALL into ALL and an empty list into an empty set', () => {
    const interner = new TargetInterner();
    expect(interner.toTargetSet({ all: true })).toBe('ALL');
    expect(interner.toTargetSet({ all: false, targets: [] })).toEqual(new Uint32Array(0));
    expect(interner.namesOf('ALL')).toEqual({ all: true });
  });

  it('turns a list into sorted distinct ids naming exactly its targets', () => {
    fc.assert(
      fc.property(fc.array(fc.array(targetName, { maxLength: 20 }), { maxLength: 6 }), (lists) => {
        const interner = new TargetInterner();
        for (const targets of lists) {
          const set = interner.toTargetSet({ all: false, targets });
          expect(set).not.toBe('ALL');
          const idList = Array.from(set as Uint32Array);
          for (let i = 1; i < idList.length; i++) expect(idList[i]!).toBeGreaterThan(idList[i - 1]!);
          const named = interner.namesOf(set);
          expect(named.all).toBe(false);
          expect(new Set(named.all ? [] : named.targets)).toEqual(new Set(targets));
          expect(idList.length).toBe(new Set(targets).size);
        }
        expect(interner.size).toBe(new Set(lists.flat()).size);
      }),
      { numRuns: 200 },
    );
  });

  it('makes two target lists intersect exactly when they share a name', () => {
    fc.assert(
      fc.property(fc.array(targetName, { maxLength: 8 }), fc.array(targetName, { maxLength: 8 }), (a, b) => {
        const interner = new TargetInterner();
        const shared = a.some((name) => b.includes(name));
        const setA = interner.toTargetSet({ all: false, targets: a });
        const setB = interner.toTargetSet({ all: false, targets: b });
        expect(intersects(setA, setB)).toBe(shared);
      }),
      { numRuns: 300 },
    );
  });
});

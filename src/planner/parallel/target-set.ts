import type { TargetSet } from '../../domain/targets.js';

// Target sets are sorted, de-duplicated interned ids (see TargetInterner) and are never mutated:
// functions here may return one of their arguments.

const EMPTY: Uint32Array = new Uint32Array(0);

/** Above this size ratio, probing the larger set by binary search beats walking both. */
const GALLOP_RATIO = 16;

/**
 * Whether two units touch a common target. `ALL` intersects everything, an empty list included
 * (queue-semantics, parallel mode rule 2); two lists intersect when they share an id.
 */
export function intersects(a: TargetSet, b: TargetSet): boolean {
  if (a === 'ALL' || b === 'ALL') return true;
  if (a.length === 0 || b.length === 0) return false;
  if (a[a.length - 1]! < b[0]! || b[b.length - 1]! < a[0]!) return false;
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  return large.length > GALLOP_RATIO * small.length ? probeIntersects(small, large) : mergeIntersects(small, large);
}

function mergeIntersects(a: Uint32Array, b: Uint32Array): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) return true;
    if (x < y) i++;
    else j++;
  }
  return false;
}

function probeIntersects(small: Uint32Array, large: Uint32Array): boolean {
  let lo = 0;
  for (let i = 0; i < small.length; i++) {
    const x = small[i]!;
    let hi = large.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (large[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    if (lo === large.length) return false;
    if (large[lo] === x) return true;
  }
  return false;
}

/** The targets of a batch: `ALL` if any entry has `ALL`, otherwise every id of every entry once. */
export function union(sets: readonly TargetSet[]): TargetSet {
  const lists: Uint32Array[] = [];
  for (const set of sets) {
    if (set === 'ALL') return 'ALL';
    if (set.length > 0) lists.push(set);
  }
  if (lists.length === 0) return EMPTY;
  // Merge in pairs, round after round: each id is copied log2(lists) times, not once per list.
  let round = lists;
  while (round.length > 1) {
    const next: Uint32Array[] = [];
    for (let i = 0; i < round.length; i += 2) {
      const b = round[i + 1];
      next.push(b === undefined ? round[i]! : mergeUnion(round[i]!, b));
    }
    round = next;
  }
  return round[0]!;
}

function mergeUnion(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x <= y) {
      out[n++] = x;
      i++;
      if (x === y) j++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return n === out.length ? out : out.slice(0, n);
}

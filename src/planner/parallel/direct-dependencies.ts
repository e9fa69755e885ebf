import type { GraphUnit } from './graph-unit.js';

/**
 * The direct dependencies of each unit (see DependencyGraph), found in one pass over the targets in
 * queue order and only as far as asked: a unit's dependencies are all ahead of it, so `extendTo(k)`
 * scans units up to k and no further. The planner mostly asks about the units near the head (runs
 * start in queue order up to `concurrency`), so a plan of a long queue rarely reads the targets of
 * its tail.
 *
 * Direct dependencies of an included unit are: for each of its targets, the nearest included unit
 * ahead holding that target (an `ALL` unit holds every target), and the nearest `ALL` unit ahead.
 * An `ALL` unit depends on every included unit ahead since the previous `ALL` unit, and on that one.
 *
 * Nothing behind the last unit asked about is read. Time O(units scanned + their targets); memory
 * O(units + largest target id scanned + dependencies found).
 */
export class DirectDependencies {
  /** Units whose dependencies are known: 0..scanned-1. */
  private scanned = 0;
  /** Dependencies of unit k are list[start[k]..start[k+1]), in no particular order (k < scanned). */
  private readonly start: Int32Array;
  private list: Int32Array;
  private count = 0;

  /** lastHolder[id]: the last scanned included unit holding target id, or -1 (ids past its end: -1). */
  private lastHolder: Int32Array = new Int32Array(0);
  /** addedFor[j] === k: j is already a dependency of k. */
  private readonly addedFor: Int32Array;
  /** Included units after the last `ALL` unit, in queue order. */
  private readonly sinceAll: Int32Array;
  private sinceAllCount = 0;
  private lastAll = -1;

  constructor(private readonly units: readonly GraphUnit[]) {
    const n = units.length;
    this.start = new Int32Array(n + 1);
    this.list = new Int32Array(Math.max(16, 2 * n));
    this.addedFor = new Int32Array(n).fill(-1);
    this.sinceAll = new Int32Array(n);
  }

  /** First position of unit k's dependencies in `dependencies` (k scanned). */
  startOf(unitIndex: number): number {
    return this.start[unitIndex]!;
  }

  /** One past the last position of unit k's dependencies in `dependencies` (k scanned). */
  endOf(unitIndex: number): number {
    return this.start[unitIndex + 1]!;
  }

  /** Every dependency found so far; reallocated as the scan goes on, so read it after `extendTo`. */
  get dependencies(): Int32Array {
    return this.list;
  }

  /** Scans units up to and including `unitIndex` (a valid index). */
  extendTo(unitIndex: number): void {
    if (unitIndex < this.scanned) return;
    const { units, start, addedFor, sinceAll } = this;
    // The scan keeps its state in locals (writes them back at the end): this loop runs once per target id.
    let { list, count, sinceAllCount, lastAll, lastHolder } = this;
    for (let k = this.scanned; k <= unitIndex; k++) {
      start[k] = count;
      const { targets, excluded } = units[k]!;
      if (excluded) continue;
      const more = targets === 'ALL' ? sinceAllCount + 1 : targets.length + 1;
      if (count + more > list.length) list = grownList(list, count, count + more);
      if (targets === 'ALL') {
        if (lastAll >= 0) list[count++] = lastAll;
        list.set(sinceAll.subarray(0, sinceAllCount), count);
        count += sinceAllCount;
        lastAll = k;
        sinceAllCount = 0;
        continue;
      }
      const largestId = targets.length > 0 ? targets[targets.length - 1]! : -1;
      if (largestId >= lastHolder.length) lastHolder = grownHolders(lastHolder, largestId + 1);
      if (lastAll >= 0) {
        list[count++] = lastAll;
        addedFor[lastAll] = k;
      }
      for (let t = 0; t < targets.length; t++) {
        const id = targets[t]!;
        const holder = lastHolder[id]!;
        // A holder behind the last ALL unit is reached through it (and -1 is never > lastAll).
        if (holder > lastAll && addedFor[holder] !== k) {
          addedFor[holder] = k;
          list[count++] = holder;
        }
        lastHolder[id] = k;
      }
      sinceAll[sinceAllCount++] = k;
    }
    start[unitIndex + 1] = count;
    this.scanned = unitIndex + 1;
    this.list = list;
    this.lastHolder = lastHolder;
    this.count = count;
    this.sinceAllCount = sinceAllCount;
    this.lastAll = lastAll;
  }
}

function grownList(list: Int32Array, used: number, needed: number): Int32Array {
  const next = new Int32Array(Math.max(2 * list.length, needed));
  next.set(list.subarray(0, used));
  return next;
}

function grownHolders(lastHolder: Int32Array, needed: number): Int32Array {
  const next = new Int32Array(Math.max(2 * lastHolder.length, needed)).fill(-1);
  next.set(lastHolder);
  return next;
}

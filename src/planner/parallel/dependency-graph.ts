import type { TargetSet } from '../../domain/targets.js';

/** One unit as the graph sees it, given in queue order. */
export interface GraphUnit {
  readonly id: string;
  readonly targets: TargetSet;
  /**
   * Merged or a suspect: not part of the graph for new runs (parallel mode rule 4). Nothing depends
   * on it, and what it alone linked stays unlinked.
   */
  readonly excluded: boolean;
}

/**
 * Which units ahead each unit depends on (parallel mode rule 2), built in one pass over the
 * targets instead of intersecting every pair of units.
 *
 * Direct dependencies of an included unit are: for each of its targets, the nearest included unit
 * ahead holding that target (an `ALL` unit holds every target), and the nearest `ALL` unit ahead.
 * An `ALL` unit depends on every included unit ahead since the previous `ALL` unit, and on that
 * one. Their transitive closure is exactly the closure of "intersects": a farther unit sharing a
 * target is reached through the nearer holder, which shares it too.
 *
 * Units are referred to by their index in the input.
 */
export class DependencyGraph {
  private readonly visited: Int32Array;
  private readonly stack: Int32Array;
  private stamp = 0;

  /** @internal use buildDependencyGraph */
  constructor(
    private readonly units: readonly GraphUnit[],
    /** Direct dependencies of unit k are deps[depStart[k]..depStart[k+1]), in no particular order. */
    private readonly depStart: Int32Array,
    private readonly deps: Int32Array,
  ) {
    this.visited = new Int32Array(units.length);
    this.stack = new Int32Array(units.length);
  }

  /** Number of units given, excluded ones included. */
  get size(): number {
    return this.units.length;
  }

  isIncluded(unitIndex: number): boolean {
    return !this.unitAt(unitIndex).excluded;
  }

  /** The direct dependencies ahead of an included unit, in queue order (none for excluded ones). */
  directDependencies(unitIndex: number): number[] {
    this.unitAt(unitIndex);
    return Array.from(this.deps.subarray(this.depStart[unitIndex]!, this.depStart[unitIndex + 1]!)).sort((a, b) => a - b);
  }

  /** Whether every direct dependency of the unit satisfies `ok` (without copying them). */
  everyDependency(unitIndex: number, ok: (dep: number) => boolean): boolean {
    this.unitAt(unitIndex);
    const end = this.depStart[unitIndex + 1]!;
    for (let i = this.depStart[unitIndex]!; i < end; i++) if (!ok(this.deps[i]!)) return false;
    return true;
  }

  /**
   * Every unit ahead that an included unit transitively depends on, in queue order: what its run
   * contains before its own PRs (parallel mode rule 3).
   */
  closureAhead(unitIndex: number): number[] {
    if (this.unitAt(unitIndex).excluded) {
      throw new RangeError(`unit ${unitIndex} is excluded from the graph and has no closure`);
    }
    const stamp = this.nextStamp();
    const { visited, stack, deps, depStart } = this;
    const found: number[] = [];
    let top = 0;
    stack[top++] = unitIndex;
    visited[unitIndex] = stamp;
    while (top > 0) {
      const unit = stack[--top]!;
      const end = depStart[unit + 1]!;
      for (let d = depStart[unit]!; d < end; d++) {
        const dep = deps[d]!;
        if (visited[dep] === stamp) continue;
        visited[dep] = stamp;
        found.push(dep);
        stack[top++] = dep;
      }
    }
    return found.sort((a, b) => a - b);
  }

  private unitAt(unitIndex: number): GraphUnit {
    const unit = this.units[unitIndex];
    if (unit === undefined || !Number.isInteger(unitIndex)) {
      throw new RangeError(`no unit at index ${unitIndex} (graph of ${this.units.length})`);
    }
    return unit;
  }

  private nextStamp(): number {
    if (this.stamp === 0x7fffffff) {
      this.visited.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/** O(units + total targets) time; memory O(units + largest target id + direct dependencies). */
export function buildDependencyGraph(units: readonly GraphUnit[]): DependencyGraph {
  const n = units.length;
  const lastHolder = new Int32Array(targetUniverse(units)).fill(-1);
  /** addedFor[j] === k: j is already a dependency of k. */
  const addedFor = new Int32Array(n).fill(-1);
  /** Included units after the last `ALL` unit, in queue order. */
  const sinceAll = new Int32Array(n);
  let sinceAllCount = 0;
  let lastAll = -1;

  const depStart = new Int32Array(n + 1);
  let deps = new Int32Array(Math.max(16, 2 * n));
  let count = 0;
  const reserve = (more: number): void => {
    if (count + more <= deps.length) return;
    const grown = new Int32Array(Math.max(2 * deps.length, count + more));
    grown.set(deps.subarray(0, count));
    deps = grown;
  };

  for (let k = 0; k < n; k++) {
    depStart[k] = count;
    const { targets, excluded } = units[k]!;
    if (excluded) continue;
    if (targets === 'ALL') {
      reserve(sinceAllCount + 1);
      if (lastAll >= 0) deps[count++] = lastAll;
      deps.set(sinceAll.subarray(0, sinceAllCount), count);
      count += sinceAllCount;
      lastAll = k;
      sinceAllCount = 0;
      continue;
    }
    reserve(targets.length + 1);
    if (lastAll >= 0) {
      deps[count++] = lastAll;
      addedFor[lastAll] = k;
    }
    for (let t = 0; t < targets.length; t++) {
      const id = targets[t]!;
      const holder = lastHolder[id]!;
      // A holder behind the last ALL unit is reached through it (and -1 is never > lastAll).
      if (holder > lastAll && addedFor[holder] !== k) {
        addedFor[holder] = k;
        deps[count++] = holder;
      }
      lastHolder[id] = k;
    }
    sinceAll[sinceAllCount++] = k;
  }
  depStart[n] = count;
  return new DependencyGraph(units, depStart, deps.slice(0, count));
}

/** One more than the largest target id of an included unit. */
function targetUniverse(units: readonly GraphUnit[]): number {
  let universe = 0;
  for (const { targets, excluded } of units) {
    if (excluded || targets === 'ALL' || targets.length === 0) continue;
    universe = Math.max(universe, targets[targets.length - 1]! + 1);
  }
  return universe;
}

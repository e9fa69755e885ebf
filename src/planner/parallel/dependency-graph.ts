import { DirectDependencies } from './direct-dependencies.js';
import type { GraphUnit } from './graph-unit.js';

export type { GraphUnit } from './graph-unit.js';

/**
 * Which units ahead each unit depends on (parallel mode rule 2), found in one pass over the targets
 * instead of intersecting every pair of units, and only as far down the queue as the questions asked
 * reach (see DirectDependencies). The transitive closure of the direct dependencies is exactly the
 * closure of "intersects": a farther unit sharing a target is reached through the nearer holder,
 * which shares it too.
 *
 * Units are referred to by their index in the input.
 */
export class DependencyGraph {
  private readonly direct: DirectDependencies;
  private readonly visited: Int32Array;
  private readonly stack: Int32Array;
  private stamp = 0;

  /** @internal use buildDependencyGraph */
  constructor(private readonly units: readonly GraphUnit[]) {
    this.direct = new DirectDependencies(units);
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
    const direct = this.scannedTo(unitIndex);
    return Array.from(direct.dependencies.subarray(direct.startOf(unitIndex), direct.endOf(unitIndex))).sort((a, b) => a - b);
  }

  /** Whether every direct dependency of the unit satisfies `ok` (without copying them). */
  everyDependency(unitIndex: number, ok: (dep: number) => boolean): boolean {
    const direct = this.scannedTo(unitIndex);
    const deps = direct.dependencies;
    const end = direct.endOf(unitIndex);
    for (let i = direct.startOf(unitIndex); i < end; i++) if (!ok(deps[i]!)) return false;
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
    // Everything the walk reaches is ahead of the unit, so scanned with it.
    const direct = this.scannedTo(unitIndex);
    const deps = direct.dependencies;
    const stamp = this.nextStamp();
    const { visited, stack } = this;
    const found: number[] = [];
    let top = 0;
    stack[top++] = unitIndex;
    visited[unitIndex] = stamp;
    while (top > 0) {
      const unit = stack[--top]!;
      const end = direct.endOf(unit);
      for (let d = direct.startOf(unit); d < end; d++) {
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

  /** The direct dependencies, scanned at least up to a valid unit index. */
  private scannedTo(unitIndex: number): DirectDependencies {
    this.unitAt(unitIndex);
    this.direct.extendTo(unitIndex);
    return this.direct;
  }

  private nextStamp(): number {
    if (this.stamp === 0x7fffffff) {
      this.visited.fill(0);
      this.stamp = 0;
    }
    return ++this.stamp;
  }
}

/** Cheap: the work happens as questions about the units are asked, O(total targets) at most. */
export function buildDependencyGraph(units: readonly GraphUnit[]): DependencyGraph {
  return new DependencyGraph(units);
}

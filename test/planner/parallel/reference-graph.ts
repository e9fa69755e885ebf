import type { TargetSet } from '../../../src/domain/targets.js';
import type { GraphUnit } from '../../../src/planner/parallel/dependency-graph.js';

// Slow, obviously-correct versions of the parallel-mode rules, written straight from
// queue-semantics.md, to check the fast implementation against.

export function naiveIntersects(a: TargetSet, b: TargetSet): boolean {
  if (a === 'ALL' || b === 'ALL') return true;
  const inA = new Set(a);
  return Array.from(b).some((id) => inA.has(id));
}

/** Unit k depends on every included unit j ahead whose targets intersect its own. */
export function naiveDependsOn(units: readonly GraphUnit[], k: number, j: number): boolean {
  const a = units[k]!;
  const b = units[j]!;
  return j < k && !a.excluded && !b.excluded && naiveIntersects(a.targets, b.targets);
}

export function naiveClosureAhead(units: readonly GraphUnit[], k: number): number[] {
  const seen = new Set<number>();
  const todo = [k];
  while (todo.length > 0) {
    const unit = todo.pop()!;
    for (let j = 0; j < unit; j++) {
      if (!seen.has(j) && naiveDependsOn(units, unit, j)) {
        seen.add(j);
        todo.push(j);
      }
    }
  }
  return [...seen].sort((x, y) => x - y);
}

/** The documented direct dependencies, found by scanning back from the unit. */
export function naiveDirectDependencies(units: readonly GraphUnit[], k: number): number[] {
  const unit = units[k]!;
  if (unit.excluded) return [];
  const included = (j: number) => !units[j]!.excluded;
  const isAll = (j: number) => units[j]!.targets === 'ALL';
  const deps = new Set<number>();
  const nearestAll = lastIndexBefore(k, (j) => included(j) && isAll(j));
  if (nearestAll >= 0) deps.add(nearestAll);
  if (unit.targets === 'ALL') {
    for (let j = nearestAll + 1; j < k; j++) if (included(j)) deps.add(j);
  } else {
    for (const id of unit.targets) {
      const holder = lastIndexBefore(
        k,
        (j) => included(j) && (isAll(j) || (units[j]!.targets as Uint32Array).includes(id)),
      );
      if (holder >= 0) deps.add(holder);
    }
  }
  return [...deps].sort((x, y) => x - y);
}

function lastIndexBefore(k: number, test: (j: number) => boolean): number {
  for (let j = k - 1; j >= 0; j--) if (test(j)) return j;
  return -1;
}

/**
 * For each unit, the earliest unit linked to it by a chain of intersecting included units (itself
 * if none is earlier); -1 for an excluded unit.
 */
export function naiveLaneLeaders(units: readonly GraphUnit[]): number[] {
  const leader = units.map(() => -1);
  units.forEach((unit, start) => {
    if (unit.excluded || leader[start] !== -1) return;
    leader[start] = start;
    const todo = [start];
    while (todo.length > 0) {
      const a = todo.pop()!;
      units.forEach((_, b) => {
        if (leader[b] === -1 && naiveDependsOn(units, Math.max(a, b), Math.min(a, b))) {
          leader[b] = start;
          todo.push(b);
        }
      });
    }
  });
  return leader;
}

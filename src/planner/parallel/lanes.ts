import type { DependencyGraph } from './dependency-graph.js';

/**
 * Independent lanes: the connected groups of included units, linked by dependencies in either
 * direction. Units in different lanes never share a run, so they test, fail and merge apart.
 */
export interface Lanes {
  /** Each lane's unit indexes in queue order; lanes ordered by their first unit. */
  readonly lanes: readonly (readonly number[])[];
  /** The lane number (index into `lanes`) of each unit, or -1 for an excluded unit. */
  readonly laneOfUnit: Int32Array;
}

export function findLanes(graph: DependencyGraph): Lanes {
  const n = graph.size;
  // Union-find whose root is always the earliest unit of its group.
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const root = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[i] !== r) {
      const next = parent[i]!;
      parent[i] = r;
      i = next;
    }
    return r;
  };
  for (let k = 0; k < n; k++) {
    for (const dep of graph.directDependencies(k)) {
      const a = root(dep);
      const b = root(k);
      if (a < b) parent[b] = a;
      else if (b < a) parent[a] = b;
    }
  }

  const laneOfUnit = new Int32Array(n).fill(-1);
  const lanes: number[][] = [];
  for (let k = 0; k < n; k++) {
    if (!graph.isIncluded(k)) continue;
    const r = root(k);
    // The root comes first in queue order, so its lane exists before any other member's.
    if (r === k) {
      laneOfUnit[k] = lanes.length;
      lanes.push([k]);
    } else {
      const lane = laneOfUnit[r]!;
      laneOfUnit[k] = lane;
      lanes[lane]!.push(k);
    }
  }
  return { lanes, laneOfUnit };
}

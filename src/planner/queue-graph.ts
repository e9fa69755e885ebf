import type { Unit } from '../domain/queue.js';
import type { TargetSet } from '../domain/targets.js';
import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import { SuspectExclusion } from './suspicion.js';
import { isSuspect } from './units.js';
import { buildDependencyGraph, type DependencyGraph } from './parallel/dependency-graph.js';
import { union } from './parallel/target-set.js';

/**
 * The dependency graph of a parallel queue as it stands in a draft, over `d.units` (graph index =
 * queue position). Units that are landing stay in it: nothing ahead of them is left unlanded that
 * they depend on, so they link nothing that is not linked anyway, and keeping them lets both views
 * share one graph while no suspect is left out.
 * - `graphForMerging`: every unit. A unit merges only once every unit it depends on has (parallel
 *   rule 4: "ahead" read as "ahead and depended on"), suspects included.
 * - `graphForRuns`: without the suspects that SuspectExclusion leaves out (rule 4: "a new run takes
 *   the dependency closure without the suspects"); one being rerun for a failure of its own stays
 *   in its lane (single-mode rule 6, parallel case).
 * A graph reads the targets only as far down the queue as the phases ask about (at most linear in
 * units + targets); the draft caches the last graphs, so the phases of one plan share them while
 * nothing changed.
 */
export function graphForMerging(d: Draft): DependencyGraph {
  return cachedGraph(d, () => false);
}

export function graphForRuns(d: Draft): DependencyGraph {
  const exclusion = new SuspectExclusion(d);
  return cachedGraph(d, (u) => isSuspect(d, u) && exclusion.excludes(u, 0, 0));
}

/** Entry ids of the units that unit `index` transitively depends on and that still have to land, in queue order. */
export function closureEntries(d: Draft, graph: DependencyGraph, index: number): string[] {
  if (!graph.isIncluded(index)) return [];
  const out: string[] = [];
  for (const k of graph.closureAhead(index)) {
    const unit = d.units[k]!;
    if (isLanding(d, unit)) continue;
    for (const id of unit.entryIds) out.push(id);
  }
  return out;
}

/** A unit's impacted targets: its entry's, or the union of a batch's. Unknown targets count as ALL. */
export function unitTargets(d: Draft, unit: Unit): TargetSet {
  if (unit.entryIds.length === 1) return d.targets.get(unit.entryIds[0]!) ?? 'ALL';
  return union(unit.entryIds.map((id) => d.targets.get(id) ?? 'ALL'));
}

/** Whether `unitTargets(d, unit)` is `ALL`, without building a batch's union. */
export function impactsAll(d: Draft, unit: Unit): boolean {
  return unit.entryIds.some((id) => (d.targets.get(id) ?? 'ALL') === 'ALL');
}

function cachedGraph(d: Draft, excluded: (u: Unit) => boolean): DependencyGraph {
  const flags = d.units.map((u) => (excluded(u) ? '1' : '0')).join('');
  const key = `${d.unitsEpoch}:${flags}`;
  const hit = d.graphCache.get(key);
  if (hit) return hit as DependencyGraph;
  const graph = buildDependencyGraph(
    d.units.map((u, i) => ({ id: u.id, targets: unitTargets(d, u), excluded: flags.charCodeAt(i) === 49 })),
  );
  if (d.graphCache.size >= 4) d.graphCache.clear();
  d.graphCache.set(key, graph);
  return graph;
}

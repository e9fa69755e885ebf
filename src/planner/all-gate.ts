import type { Draft } from './draft.js';
import { isLanding } from './invalidation.js';
import { unitState } from './units.js';
import type { DependencyGraph } from './parallel/dependency-graph.js';
import { impactsAll } from './queue-graph.js';

/**
 * mergeq's policy for `ALL` units (parallel rule 5; docs/all-targets.md): an `ALL` unit is tested on
 * a proven base only, and nothing builds on it before it is tested.
 * - An `ALL` unit starts its run once every unit it depends on has passed or is landing — never on
 *   top of speculation, where any of dozens of unproven units ahead would fail it and every unit
 *   behind it. The one exception is an earlier `ALL` unit under test (itself on a proven base): a
 *   cluster of `ALL` PRs is tested as a chain, instead of each waiting for the one before to pass
 *   while every unit behind waits too.
 * - A unit that depends on an `ALL` unit starts once that unit has started: before, its run would
 *   hold the same unproven units.
 * The lanes ahead are not disturbed at all, and a bad or flaky unit ahead costs only its own lane.
 *
 * Asked in queue order by the walk that starts runs. What the closure of each unit ahead holds is
 * folded along the direct dependencies once, instead of walking every asked unit's closure: behind
 * a pending `ALL` unit every unit is asked and refused, and those walks were quadratic in the queue
 * length. Every included unit behind that `ALL` unit depends on it (directly or through a later
 * `ALL` unit), so the fold stops there and the graph is not read any further.
 */
export class AllGate {
  /** pendingAllIn[j] === 1: unit j or a unit it depends on is an `ALL` unit still PENDING (not landing). */
  private readonly pendingAllIn: Uint8Array;
  /**
   * baseThrough[j] === 1: unit j and every unit it depends on have passed, are landing, or are `ALL`
   * units under test (on such a base themselves).
   */
  private readonly baseThrough: Uint8Array;
  /** Units 0..folded-1 are folded into the two arrays above. */
  private folded = 0;
  /** The first included `ALL` unit found PENDING and not landing: every included unit behind it is held. */
  private holdingAll = -1;
  private lastAsked = -1;

  constructor(
    private readonly d: Draft,
    private readonly graph: DependencyGraph,
  ) {
    this.pendingAllIn = new Uint8Array(graph.size);
    this.baseThrough = new Uint8Array(graph.size);
  }

  /**
   * Whether the unit at `index` (PENDING) may start its run now. Units are asked about in queue
   * order; the state of every unit ahead of `index` must be final by then (the walk has passed it).
   */
  mayStart(index: number): boolean {
    if (index < this.lastAsked) throw new RangeError(`AllGate asked about unit ${index} after unit ${this.lastAsked}`);
    this.lastAsked = index;
    if (!this.graph.isIncluded(index)) return true;
    this.foldUpTo(index);
    if (this.holdingAll >= 0 && index > this.holdingAll) return false;
    if (impactsAll(this.d, this.d.units[index]!)) return this.graph.everyDependency(index, (j) => this.baseThrough[j] === 1);
    return this.graph.everyDependency(index, (j) => this.pendingAllIn[j] === 0);
  }

  /** Folds the units ahead of `index` (up to a holding `ALL` unit); each one's dependencies come first. */
  private foldUpTo(index: number): void {
    const { d, graph, pendingAllIn, baseThrough } = this;
    for (; this.folded < index && this.holdingAll < 0; this.folded++) {
      const j = this.folded;
      // Nothing depends on an excluded unit: its entries are never read.
      if (!graph.isIncluded(j)) continue;
      const unit = d.units[j]!;
      const landing = isLanding(d, unit);
      const state = unitState(d, unit);
      const pendingAll = !landing && state === 'PENDING' && impactsAll(d, unit);
      if (pendingAll) this.holdingAll = j;
      // An `ALL` unit under test is itself on a proven base: the next `ALL` unit may build on it.
      const base = landing || state === 'TESTS_PASSED' || (state === 'TESTING' && impactsAll(d, unit));
      pendingAllIn[j] = pendingAll || !graph.everyDependency(j, (i) => pendingAllIn[i] === 0) ? 1 : 0;
      baseThrough[j] = base && graph.everyDependency(j, (i) => baseThrough[i] === 1) ? 1 : 0;
    }
  }
}

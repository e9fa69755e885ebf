import type { Draft } from '../draft.js';
import { isLanding } from '../invalidation.js';
import { unitState } from '../units.js';
import type { DependencyGraph } from './dependency-graph.js';
import { unitTargets } from './queue-graph.js';

/**
 * mergeq's policy for `ALL` units (parallel rule 5; docs/all-targets.md): an `ALL` unit is tested on
 * a proven base only, and nothing builds on it before it is tested.
 * - An `ALL` unit starts its run once every unit it depends on has passed or is landing — never on
 *   top of speculation, where any of dozens of unproven units ahead would fail it and every unit
 *   behind it.
 * - A unit that depends on an `ALL` unit starts once that unit has started: before, its run would
 *   hold the same unproven units.
 * The lanes ahead are not disturbed at all, and a bad or flaky unit ahead costs only its own lane.
 */
export class AllGate {
  constructor(
    private readonly d: Draft,
    private readonly graph: DependencyGraph,
  ) {}

  /** Whether the unit at `index` (PENDING) may start its run now. */
  mayStart(index: number): boolean {
    const d = this.d;
    if (!this.graph.isIncluded(index)) return true;
    const all = unitTargets(d, d.units[index]!) === 'ALL';
    for (const k of this.graph.closureAhead(index)) {
      const unit = d.units[k]!;
      if (isLanding(d, unit)) continue;
      const state = unitState(d, unit);
      if (all ? state !== 'TESTS_PASSED' : state === 'PENDING' && unitTargets(d, unit) === 'ALL') return false;
    }
    return true;
  }
}

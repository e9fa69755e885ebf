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

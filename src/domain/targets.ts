/** Impacted targets of one PR head: every target, or a list of names. */
export type ImpactedTargets = { all: true } | { all: false; targets: string[] };

export function describeTargets(t: ImpactedTargets): { all: boolean; count: number } {
  return t.all ? { all: true, count: 0 } : { all: false, count: t.targets.length };
}

/**
 * Targets as the planner sees them: every target, or the sorted ids of interned target names.
 * Interning keeps hundreds of thousands of names per PR cheap to intersect.
 */
export type TargetSet = 'ALL' | Uint32Array;

import { Random, drawMinutes } from '../githost/sandbox/random.js';
import { SCENARIOS, type Scenario } from './scenario.js';
import type { SimPr } from './workload.js';

/** A scenario whose PRs arrive as stacks (benchmarks.md, "Stacks"). */
export interface StackScenario extends Scenario {
  stacks: {
    count: number;
    perHour: number;
    /** Relative weight of each stack size, from size 1 (a plain PR) up. */
    sizeWeights: readonly number[];
  };
}

/**
 * 100 stacks of 1-8 members (uniform) at 5 stacks/hour (about 22 PRs/hour, s20's load), each member
 * bad at 5%, on s20's CI and flakes. No logical conflicts (they would pair members of one stack). The books close 12 hours after the last
 * arrival: landed one by one, an 8-member stack needs 8 CI runs in a row.
 */
export const STACKS: StackScenario = {
  ...SCENARIOS.s20!,
  name: 'stacks',
  logicalConflictOneIn: 0,
  closeAfterMinutes: 720,
  stacks: { count: 100, perHour: 5, sizeWeights: [1, 1, 1, 1, 1, 1, 1, 1] },
  prs: 0,
  prsPerHour: 0,
};

/** The scenario with `count` stacks, its PR count and PR rate set from the sizes' mean. */
export function stackScenario(base: StackScenario, count = base.stacks.count): StackScenario {
  const w = base.stacks.sizeWeights;
  const mean = w.reduce((acc, x, i) => acc + x * (i + 1), 0) / w.reduce((a, b) => a + b, 0);
  return { ...base, stacks: { ...base.stacks, count }, prs: 0, prsPerHour: base.stacks.perHour * mean };
}

/** The PRs of a stack scenario for a seed: every member of a stack arrives with it, bottom first. */
export function generateStackWorkload(scenario: StackScenario, seed: number): SimPr[] {
  const root = new Random(seed);
  const arrivals = root.fork('arrivals');
  const sizes = root.fork('stack-sizes');
  const quality = root.fork('quality');
  const targets = root.fork('targets');
  const durations = root.fork('oracle-durations');
  const meanGap = 60 / scenario.stacks.perHour;
  const prs: SimPr[] = [];
  let t = 0;
  for (let s = 0; s < scenario.stacks.count; s++) {
    t += arrivals.exponential(meanGap);
    const size = drawSize(scenario.stacks.sizeWeights, sizes);
    const bottom = prs.length;
    for (let position = 1; position <= size; position++) {
      prs.push({
        index: prs.length,
        arrivalMinutes: t,
        bad: quality.chance(scenario.badRate),
        breaksWith: null,
        targets: drawTargets(scenario, targets),
        oracleCiMinutes: drawMinutes(scenario.ciDuration, durations),
        ...(size > 1 ? { stack: { bottom, position, size } } : {}),
      });
    }
  }
  return prs;
}

function drawSize(weights: readonly number[], random: Random): number {
  const total = weights.reduce((a, b) => a + b, 0);
  let x = random.next() * total;
  for (let i = 0; i < weights.length; i++) {
    x -= weights[i]!;
    if (x < 0) return i + 1;
  }
  return weights.length;
}

function drawTargets(scenario: Scenario, random: Random): string[] {
  const { universe, perPr } = scenario.targets;
  const names = new Set<string>();
  while (names.size < Math.min(perPr, universe)) names.add(`//target:${random.int(universe)}`);
  return [...names];
}

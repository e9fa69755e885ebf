import { Random, drawMinutes } from '../githost/sandbox/random.js';
import type { Scenario } from './scenario.js';

/** One simulated pull request, decided when generated (good or bad once; flakes are drawn per run). */
export interface SimPr {
  /** 0-based arrival order; the sandbox PR number is index + 1. */
  index: number;
  /** Minutes after the start of the simulation. */
  arrivalMinutes: number;
  bad: boolean;
  /** An earlier PR (index) that this one breaks the build with, if any. */
  breaksWith: number | null;
  targets: 'ALL' | string[];
  /** A CI duration drawn for this PR alone: what the oracle waits for it. */
  oracleCiMinutes: number;
  /** The storm scenario: a bad PR submitted again, as urgent, each time it leaves the queue (chronic.ts). */
  chronic?: boolean;
  /** Its place in a stack of PRs that arrived together (stack-workload.ts); absent for a plain PR. */
  stack?: SimStackPlace;
}

/** `bottom`: index of the stack's first member; `position` 1 is the bottom; members are consecutive. */
export interface SimStackPlace {
  bottom: number;
  position: number;
  size: number;
}

/** How far back a logical conflict partner is picked: PRs that arrived at about the same time. */
const CONFLICT_WINDOW = 20;

/** The PRs of a scenario for a seed; independent streams, so changing one knob moves nothing else. */
export function generateWorkload(scenario: Scenario, seed: number): SimPr[] {
  const root = new Random(seed);
  const arrivals = root.fork('arrivals');
  const quality = root.fork('quality');
  const conflicts = root.fork('conflicts');
  const targets = root.fork('targets');
  const durations = root.fork('oracle-durations');
  const meanGap = 60 / scenario.prsPerHour;
  const prs: SimPr[] = [];
  let t = 0;
  for (let index = 0; index < scenario.prs; index++) {
    t += arrivals.exponential(meanGap);
    const conflict = scenario.logicalConflictOneIn > 0 && index > 0 && conflicts.chance(1 / scenario.logicalConflictOneIn);
    const partner = conflicts.int(Math.min(index, CONFLICT_WINDOW));
    const breaksWith = conflict ? index - 1 - partner : null;
    const chronic = scenario.chronic !== undefined && index % scenario.chronic.every === Math.floor(scenario.chronic.every / 2);
    const bad = quality.chance(scenario.badRate);
    prs.push({
      index,
      arrivalMinutes: t,
      bad: bad || chronic,
      ...(chronic ? { chronic: true } : {}),
      breaksWith,
      targets: sharingWith(drawTargets(scenario, targets), breaksWith === null ? null : prs[breaksWith]!.targets),
      oracleCiMinutes: drawMinutes(scenario.ciDuration, durations),
    });
  }
  return prs;
}

function drawTargets(scenario: Scenario, random: Random): 'ALL' | string[] {
  const { universe, perPr, allShare } = scenario.targets;
  const all = random.chance(allShare);
  const names = new Set<string>();
  while (names.size < Math.min(perPr, universe)) names.add(`//target:${random.int(universe)}`);
  return all ? 'ALL' : [...names];
}

/**
 * Two PRs that break the build together share an impacted target: target analysis exists to find
 * exactly that (a PR's tests depend on the code the other one changed).
 */
function sharingWith(own: 'ALL' | string[], partner: 'ALL' | string[] | null): 'ALL' | string[] {
  if (own === 'ALL' || partner === null || partner === 'ALL' || partner.length === 0) return own;
  return own.includes(partner[0]!) ? own : [...own, partner[0]!];
}

/**
 * Whether a PR should merge in a perfect queue: it is good, and it does not break with an earlier PR
 * that merges (the earlier one lands first; the later one then fails on top of it).
 */
export function shouldMerge(prs: readonly SimPr[]): boolean[] {
  const merges: boolean[] = [];
  for (const pr of prs) merges.push(!pr.bad && (pr.breaksWith === null || !merges[pr.breaksWith]));
  return merges;
}

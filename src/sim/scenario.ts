import type { FailureTiming } from '../githost/sandbox/ci.js';
import type { DurationSpec } from '../githost/sandbox/random.js';

/** The load a simulation runs (benchmarks.md, "Queue efficiency"). */
export interface Scenario {
  name: string;
  prsPerHour: number;
  prs: number;
  ciDuration: DurationSpec;
  /** Probability that a PR is bad: every run holding it fails. */
  badRate: number;
  /** Probability that a run fails although its content is good. */
  flakeRate: number;
  /** When a failing run reports (see `CiOptions.failureTiming`). */
  failureTiming: FailureTiming;
  /** One PR in N breaks the build together with an earlier one it does not textually conflict with (0: never). */
  logicalConflictOneIn: number;
  /** Impacted targets, used in parallel mode. */
  targets: { universe: number; perPr: number; allShare: number };
  /** The books close this long after the last arrival. */
  closeAfterMinutes: number;
  /**
   * Virtual minutes per simulation tick: what happens within a tick is seen together, at its end.
   * The oracles see exact times, so a tick adds about half of it to every queue's times in queue.
   */
  tickMinutes: number;
  /**
   * The repository's tests (flaky-tests.md, "The simulator"): runs fail on flaky tests whose rates
   * make `flakeRate` of runs flake, and on the tests bad PRs break; each run's results are uploaded
   * and the queue learns from the detector. null: runs flake as a whole and upload nothing (the
   * behaviour and figures before test-level results).
   */
  testModel: { steadyTests: number; flakyTests: number } | null;
  /** Storms (benchmarks.md): one PR in `every` is bad and submitted again as urgent `resubmits` times after it leaves the queue. */
  chronic?: { every: number; resubmits: number };
}

const TEST_MODEL = { steadyTests: 20, flakyTests: 8 };
const CI: DurationSpec = { kind: 'lognormal', medianMinutes: 30, p90Minutes: 60 };

function scenario(name: string, over: Partial<Scenario> & Pick<Scenario, 'prsPerHour' | 'prs' | 'targets'>): Scenario {
  return { name, ciDuration: CI, badRate: 0.05, flakeRate: 0.1, failureTiming: 'end', logicalConflictOneIn: 100, closeAfterMinutes: 240, tickMinutes: 1, testModel: TEST_MODEL, ...over };
}

/** The named scenarios: the same names everywhere, so results compare across versions. */
export const SCENARIOS: Record<string, Scenario> = {
  s20: scenario('s20', { prsPerHour: 20, prs: 2000, targets: { universe: 1000, perPr: 3, allShare: 0.02 } }),
  s100: scenario('s100', { prsPerHour: 100, prs: 4000, targets: { universe: 10_000, perPr: 3, allShare: 0 } }),
  's100-all': scenario('s100-all', { prsPerHour: 100, prs: 4000, targets: { universe: 1000, perPr: 3, allShare: 0.005 } }),
  s500: scenario('s500', { prsPerHour: 500, prs: 10_000, targets: { universe: 10_000, perPr: 3, allShare: 0 } }),
  // A chronically failing head: one PR in 100 is bad and a bot puts it back at the head 4 times.
  storm: scenario('storm', {
    prsPerHour: 20,
    prs: 400,
    ciDuration: { kind: 'lognormal', medianMinutes: 10, p90Minutes: 20 },
    chronic: { every: 100, resubmits: 4 },
    targets: { universe: 1000, perPr: 3, allShare: 0.02 },
  }),
  's20-clean': scenario('s20-clean', {
    prsPerHour: 20,
    prs: 2000,
    badRate: 0.01,
    flakeRate: 0.02,
    targets: { universe: 1000, perPr: 3, allShare: 0.02 },
  }),
};

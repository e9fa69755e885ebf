import { submitEntry } from '../planner/index.js';
import { initialReadiness, type Readiness } from '../domain/entry.js';
import { derivedId } from '../domain/ids.js';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import { defaultSettings, type QueueMode } from '../domain/settings.js';
import type { PrState } from '../domain/states.js';
import type { TargetSet } from '../domain/targets.js';
import { Random } from '../githost/sandbox/random.js';
import { buildDependencyGraph, findLanes, union, type GraphUnit } from '../planner/parallel/index.js';
import { applyActions, plan, recordImpactedTargets, recordRunCreated, recordStatusChecks, type PlanInput } from '../planner/index.js';
import { newSimQueue } from './sim-queue.js';
import { isInFlight } from '../domain/run.js';

/**
 * Queue documents for timing one `plan()` (bench:planner): a busy queue in the middle of its day,
 * built through the real client command (`submitEntry`), the planner itself and the facts the engine
 * records — not written by hand.
 *
 * The document handed to the measured plan is a settled queue (everything ready placed, `concurrency`
 * runs in flight, a few units behind the head already passed and waiting for it, a few PRs not ready
 * yet) plus what one ordinary reconcile brings: the head's run reports success and one new PR
 * arrives. Planning it lands the head and the passed units behind it, places the new PR and starts
 * runs in the slots that freed up.
 */

export const FIXTURE_REPO: RepoRef = { host: 'bench.invalid', owner: 'bench', name: 'monorepo' };
const BRANCH = 'main';
/** Every fixture is built (and planned) at this instant: the document and the plan do not depend on the wall clock. */
export const FIXTURE_NOW = new Date('2026-01-05T09:00:00.000Z');

export interface PlannerFixtureOptions {
  /** Active entries in the measured document (the arriving PR included). */
  entries: number;
  mode: QueueMode;
  /** Impacted targets per PR (distinct ids drawn from the universe). */
  targetsPerPr: number;
  /** Number of distinct target ids PRs draw from. */
  universe: number;
  /** Runs in flight (queue setting). */
  concurrency: number;
  /** Units just behind the head whose runs already passed (TESTS_PASSED, waiting for the head). */
  passedBehindHead: number;
  /** Submitted PRs not ready yet (the git host has not computed their mergeability). */
  notReady: number;
  seed: number;
}

export function defaultFixtureOptions(entries: number, mode: QueueMode, overrides: Partial<PlannerFixtureOptions> = {}): PlannerFixtureOptions {
  return {
    entries,
    mode,
    targetsPerPr: 1000,
    universe: 100_000,
    concurrency: 100,
    passedBehindHead: 5,
    notReady: Math.floor(entries / 100),
    seed: 1,
    ...overrides,
  };
}

export interface PlannerFixture {
  options: PlannerFixtureOptions;
  /** What the measured plan gets. `targets` is empty in single mode, as the engine passes it. */
  input: PlanInput;
  now: Date;
  /** Entries of the measured document by state. */
  states: Partial<Record<PrState, number>>;
  /** Every PR's target set by entry id (also in single mode, where the plan does not get them). */
  allTargets: Map<string, TargetSet>;
  /** Plans run while building (not measured). */
  buildPlans: number;
}

/** Builds the document; deterministic for given options. */
export function buildPlannerFixture(options: PlannerFixtureOptions): PlannerFixture {
  const o = options;
  if (o.entries < 1) throw new RangeError('a fixture needs at least one entry (the arriving PR)');
  if (o.targetsPerPr > o.universe) throw new RangeError(`${o.targetsPerPr} targets per PR do not fit a universe of ${o.universe}`);
  const now = FIXTURE_NOW;
  const parallel = o.mode === 'parallel';
  const settings = defaultSettings({ mode: o.mode, concurrency: o.concurrency, requiredStatuses: ['ci'] });
  let q: QueueDoc = { ...newSimQueue(FIXTURE_REPO, BRANCH, settings, now), targetSha: 'main-0' };
  const sampler = new TargetSampler(o.universe, new Random(o.seed).fork('targets'));
  const allTargets = new Map<string, TargetSet>();

  const submit = (prNumber: number, ready: boolean): void => {
    const entryId = derivedId(q.id, 'entry', q.nextSeq);
    const prSha = `pr${prNumber}-a`;
    const readiness: Readiness = ready
      ? { ...initialReadiness(), gitHubMergeability: 'MERGEABLE' }
      : { ...initialReadiness(), note: 'the git host is computing its mergeability' };
    q = submitEntry(
      q,
      {
        entryId,
        prNumber,
        prTitle: `Change ${prNumber}`,
        prSha,
        prBaseBranch: BRANCH,
        prAuthor: `dev${prNumber % 17}`,
        priority: null,
        noBatch: null,
        readiness,
      },
      now,
    ).queue;
    allTargets.set(entryId, sampler.draw(o.targetsPerPr));
    if (parallel) q = recordImpactedTargets(q, prNumber, prSha);
  };

  // The queue as it stood before this reconcile: all but the arriving PR, the last few not ready.
  const before = o.entries - 1;
  const notReady = Math.min(o.notReady, before);
  for (let pr = 1; pr <= before; pr++) submit(pr, pr <= before - notReady);

  const targetsFor = (): ReadonlyMap<string, TargetSet> => (parallel ? allTargets : new Map());
  let buildPlans = 0;
  const settle = (): void => {
    for (let round = 0; round < 50; round++) {
      const actions = plan({ queue: q, targets: targetsFor() }, now);
      buildPlans++;
      if (actions.length > 0) q = applyActions(q, actions, now);
      // The engine's part: build the test branches the plan asked for.
      let built = false;
      for (const run of q.runs) {
        if (run.status !== 'creating') continue;
        q = recordRunCreated(q, run.id, { sha: `t-${run.id}`, baseSha: q.targetSha ?? 'main-0' }, now);
        built = true;
      }
      if (actions.length === 0 && !built) return;
    }
    throw new Error('planner fixture: the queue did not settle');
  };
  settle();

  // CI has reported success for a few units just behind the head: they wait for the head.
  const passUnitAt = (index: number): void => {
    const unit = q.units[index];
    const entry = unit && q.entries.find((e) => e.id === unit.entryIds[0]);
    const run = entry?.testRunId ? q.runs.find((r) => r.id === entry.testRunId) : undefined;
    if (!run?.testBranchSha || !isInFlight(run)) return;
    q = recordStatusChecks(q, run.testBranchSha, [{ context: 'ci', state: 'success', url: null }], now);
  };
  for (let i = 1; i <= o.passedBehindHead; i++) passUnitAt(i);
  settle();

  // The reconcile being measured: the head's run passed and a new PR arrived.
  passUnitAt(0);
  submit(o.entries, true);

  const states: Partial<Record<PrState, number>> = {};
  for (const e of q.entries) states[e.state] = (states[e.state] ?? 0) + 1;
  return { options: o, input: { queue: q, targets: targetsFor() }, now, states, allTargets, buildPlans };
}

/**
 * Draws sets of distinct target ids, uniformly from [0, universe), as sorted Uint32Arrays (what
 * TargetInterner makes of a PR's names).
 */
export class TargetSampler {
  /** seen[id] === stamp: id already drawn for the current set. */
  private readonly seen: Uint32Array;
  private stamp = 0;

  constructor(
    private readonly universe: number,
    private readonly random: Random,
  ) {
    this.seen = new Uint32Array(universe);
  }

  draw(count: number): Uint32Array {
    if (count > this.universe) throw new RangeError(`cannot draw ${count} distinct ids from ${this.universe}`);
    const stamp = ++this.stamp;
    const ids = new Uint32Array(count);
    for (let n = 0; n < count; ) {
      const id = this.random.int(this.universe);
      if (this.seen[id] === stamp) continue;
      this.seen[id] = stamp;
      ids[n++] = id;
    }
    return ids.sort();
  }
}

/**
 * How connected the measured queue is in parallel mode (same rule as the planner: units sharing a
 * target depend on each other): the number of independent lanes and the size of the largest.
 */
export function describeLanes(fixture: PlannerFixture): { lanes: number; largestLane: number; meanDirectDependencies: number } {
  const graph = buildDependencyGraph(graphUnits(fixture));
  const { lanes } = findLanes(graph);
  let deps = 0;
  for (let k = 0; k < graph.size; k++) deps += graph.directDependencies(k).length;
  return {
    lanes: lanes.length,
    largestLane: lanes.reduce((m, l) => Math.max(m, l.length), 0),
    meanDirectDependencies: graph.size === 0 ? 0 : deps / graph.size,
  };
}

/** The measured queue's units as the dependency graph takes them, none excluded. */
export function graphUnits(fixture: PlannerFixture): GraphUnit[] {
  return fixture.input.queue.units.map((u) => ({
    id: u.id,
    targets: union(u.entryIds.map((id) => fixture.allTargets.get(id) ?? 'ALL')),
    excluded: false,
  }));
}

/**
 * The same reconcile, except that the first PENDING PR impacts every target: it waits for the units
 * under test ahead of it to pass, and every unit behind it is held until it starts
 * (docs/all-targets.md), so the plan looks at every unit of the queue. Parallel mode only; null when
 * no PR is pending (every ready PR is under test).
 */
export function withAllPrHeld(fixture: PlannerFixture): PlannerFixture | null {
  if (fixture.options.mode !== 'parallel') throw new Error('withAllPrHeld: a parallel fixture expected');
  const { queue } = fixture.input;
  const pending = queue.entries.find((e) => e.state === 'PENDING');
  if (!pending) return null;
  const allTargets = new Map(fixture.allTargets).set(pending.id, 'ALL');
  return { ...fixture, allTargets, input: { queue, targets: allTargets } };
}

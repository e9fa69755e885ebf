import type { MergeIntent } from '../../domain/entry.js';
import type { Unit } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { Draft, Sink } from '../draft.js';
import { isLanding, restartUnit } from '../invalidation.js';
import { isLiveOrPassed } from '../run-status.js';
import { SuspectExclusion, holdsStack, isUnsplitBatch, wasOvertaken } from '../suspicion.js';
import { decidingRun, isLanded, isRemoved, isSuspect } from '../units.js';
import type { DependencyGraph } from '../parallel/dependency-graph.js';
import { graphForMerging } from '../queue-graph.js';
import { holdOf, markHeld, unitPasses } from './hold.js';

/**
 * Merge decisions (rules 2, 3, 6, 10), strictly in queue order: walking from the head, a unit lands
 * (gets a merge intent) when a passed run proves it — its own run, or with `canOptimisticallyMerge`
 * any run that contains it after exactly what has landed before it. The walk stops at the first unit
 * without a proof, so nothing merges past an unresolved unit (a suspect included). While a freeze or
 * closed merge windows hold the queue, a proven unit waits there too, unless it passes the hold.
 */
export function decideMerges(s: Sink): void {
  const d = s.d;
  if (d.state === 'paused') return;
  const passedByEntry = passedRunsByEntry(d);
  const proofIds = new Set<string>();
  for (const e of d.entries.values()) if (e.mergeIntent?.runId) proofIds.add(e.mergeIntent.runId);
  // Parallel mode: a unit waits only for the units it depends on; the walk goes on past the others.
  const graph = d.settings.mode === 'parallel' ? graphForMerging(d) : null;
  const hold = holdOf(d);
  const units = d.units.slice();
  const lands = new Uint8Array(units.length);
  // Stacks being bisected that the walk went past: overtaken once a unit behind them lands.
  const passedStacks: Unit[] = [];
  for (let k = 0; k < units.length; k++) {
    const unit = units[k]!;
    if (isLanding(d, unit)) {
      lands[k] = 1;
      continue;
    }
    const proof = findProof(d, unit, passedByEntry);
    const direct = !proof && canMergeDirectly(d, unit);
    if (!proof && !direct) {
      if (graph) continue;
      if (leftBehind(d, unit, k)) {
        if (isUnsplitBatch(unit)) passedStacks.push(unit);
        continue;
      }
      return;
    }
    // Asked only of a unit with a proof: the graph is scanned only as far as its questions reach.
    if (graph && !graph.everyDependency(k, (j) => lands[j] === 1)) continue;
    if (hold && !unitPasses(d, unit, hold)) {
      markHeld(s, unit, hold);
      if (graph) continue;
      return;
    }
    if (proof) proofIds.add(proof.id);
    for (const stack of passedStacks.splice(0)) markOvertaken(s, stack, d.unitEntries(unit).map((e) => `#${e.prNumber}`).join(', '));
    land(s, unit, proof, proofIds, graph && { graph, index: k });
    lands[k] = 1;
  }
}

/**
 * Single mode: a suspect that every unit behind it has left out of its run does not hold their
 * merges. Whatever becomes of it, it cannot merge at its place any more: a passing rerun sends it to
 * the tail (rule 6), a failure removes it, and a re-admission retests it on what has landed.
 */
function leftBehind(d: Draft, unit: Unit, k: number): boolean {
  // A batch being bisected holds them: its prefix runs are what its cleared PRs merge on. Not a
  // stack: its bisection waits for the units ahead and takes a CI run per round, which held every
  // merge behind it (bench:queue's stacks); once overtaken, what it clears re-enters at the tail.
  if (!isSuspect(d, unit) || (isUnsplitBatch(unit) && !holdsStack(d, unit))) return false;
  return new SuspectExclusion(d).excludes(unit, k, k + 1);
}

/** The suspects ahead of the unit at `k` (in single mode, the ones the merge walk went past). */
function suspectsPassed(d: Draft, k: number): Unit[] {
  return d.units.slice(0, k).filter((u) => isSuspect(d, u));
}

/** Records, once per suspicion, that PRs tested without the suspect merged past it. */
function markOvertaken(s: Sink, suspect: Unit, label: string): void {
  const d = s.d;
  const first = d.entry(suspect.entryIds[0]!);
  if (!first || wasOvertaken(first)) return;
  for (const e of d.unitEntries(suspect)) {
    s.emit({
      type: 'transition',
      entryId: e.id,
      to: e.state,
      reason: reason('overtaken', `${label}, tested without it, merged past it: ${suspect.entryIds.length > 1 ? 'what its bisection clears' : 'if its rerun passes it'} re-enters the queue at the tail`),
    });
  }
}

function passedRunsByEntry(d: Draft): Map<string, TestRun[]> {
  const m = new Map<string, TestRun[]>();
  for (const run of d.runs.values()) {
    if (run.status !== 'passed') continue;
    for (const p of run.prs) {
      const list = m.get(p.entryId);
      if (list) list.push(run);
      else m.set(p.entryId, [run]);
    }
  }
  return m;
}

/**
 * A passed run whose content, up to and including this unit, is exactly what lands: everything
 * before the unit in it has landed, nothing in it was removed. (A PR that landed outside a result
 * drops that result when it lands, so a result still passed here has tested everything landed.)
 */
function findProof(d: Draft, unit: Unit, passedByEntry: Map<string, TestRun[]>): TestRun | null {
  const first = unit.entryIds[0];
  if (first === undefined) return null;
  const suspect = isSuspect(d, unit);
  const own = d.entry(first)?.testRunId;
  const candidates = (passedByEntry.get(first) ?? []).slice().sort((a, b) => (a.id === own ? -1 : b.id === own ? 1 : 0));
  for (const run of candidates) {
    const current = d.run(run.id);
    if (current?.status !== 'passed') continue;
    // A suspect's own rerun does not merge it where it stands (rule 6: it re-enters at the tail) —
    // except in parallel mode, where its lane kept it while it was rerun.
    if (suspect && current.unitId === unit.id && d.settings.mode !== 'parallel') continue;
    // Without optimistic merging only its own run proves it: a run of the unit (or deciding it: a
    // batch prefix that passed in bisection) that ends with it. A run of the batch it was split off
    // tested more than what lands with it.
    if (!d.settings.canOptimisticallyMerge && ((current.unitId !== unit.id && current.id !== own) || !endsWith(d, current, unit))) continue;
    if (provesUnit(d, current, unit)) return current;
  }
  return null;
}

/** The run's last PR that has not landed (one merged elsewhere since may follow) is the unit's. */
function endsWith(d: Draft, run: TestRun, unit: Unit): boolean {
  for (let i = run.prs.length - 1; i >= 0; i--) {
    const id = run.prs[i]!.entryId;
    if (unit.entryIds.includes(id)) return true;
    if (!isLanded(d.entry(id))) return false;
  }
  return false;
}

function provesUnit(d: Draft, run: TestRun, unit: Unit): boolean {
  const own = new Set(unit.entryIds);
  let seenOwn = 0;
  for (const p of run.prs) {
    const e = d.entry(p.entryId);
    if (isRemoved(e)) return false;
    if (own.has(p.entryId)) {
      seenOwn++;
      continue;
    }
    if (seenOwn === 0 && !isLanded(e)) return false;
    // The unit's entries must be contiguous (apart from a PR merged elsewhere since).
    if (seenOwn > 0 && seenOwn < own.size && !isLanded(e)) return false;
  }
  return seenOwn === own.size;
}

/** Rule 10: at the head, nothing ahead, up to date with the target head and its own checks passed. */
function canMergeDirectly(d: Draft, unit: Unit): boolean {
  if (d.settings.directMergeMode !== 'always' || d.units[0] !== unit || unit.entryIds.length !== 1) return false;
  const e = d.entry(unit.entryIds[0]!);
  if (!e || (e.state !== 'PENDING' && e.state !== 'TESTING')) return false;
  const target = d.base.targetSha;
  return !!target && e.readiness.containsTargetSha === target && e.readiness.ownChecksPassedSha === e.prSha;
}

/** Parallel mode: the graph the merge walk uses, with the landing unit's index in it. */
interface GraphPosition {
  graph: DependencyGraph;
  index: number;
}

function land(s: Sink, unit: Unit, proof: TestRun | null, proofIds: ReadonlySet<string>, at: GraphPosition | null): void {
  const d = s.d;
  for (const e of d.unitEntries(unit)) {
    const intent: MergeIntent = { runId: proof?.id ?? null, expectedSha: e.prSha, requestedAt: d.nowIso };
    const set = { mergeIntent: intent, testRunId: proof?.id ?? e.testRunId };
    if (!proof) {
      s.emit({
        type: 'transition',
        entryId: e.id,
        to: 'TESTS_PASSED',
        reason: reason('direct_merge', 'up to date with the target branch and its own checks passed: merging without a test run'),
        set,
      });
    } else if (e.state === 'TESTS_PASSED') {
      s.emit({ type: 'patchEntry', entryId: e.id, set });
    } else {
      const proven = proof.unitId === unit.id ? 'tests passed' : 'tests passed in a run that contained it';
      s.emit({ type: 'transition', entryId: e.id, to: 'TESTS_PASSED', reason: reason('tests_passed', proven), set });
    }
  }
  dropResultsLacking(s, unit, proofIds, at);
}

/**
 * The unit will land: results of units still to land that did not test it say nothing any more
 * (a suspect that merges after all restarts the results that left it out, rule 6).
 */
function dropResultsLacking(s: Sink, unit: Unit, proofIds: ReadonlySet<string>, landing: GraphPosition | null): void {
  const d = s.d;
  const ids = unit.entryIds;
  const label = ids.map((id) => `#${d.entry(id)?.prNumber}`).join(', ');
  const why = reason('readmitted', `${label} ahead of it merges after all; retesting with it`);
  const index = d.unitIndex();
  const passed = landing ? [] : suspectsPassed(d, index.get(unit.id)!);
  const dependent = landing && memoized((k: number) => dependsOn(landing, k));
  for (const run of [...d.runs.values()]) {
    if (!isLiveOrPassed(run) || holdsAll(run, ids)) continue;
    const at = index.get(run.unitId);
    const runUnit = at === undefined ? undefined : d.units[at];
    const suspect = passed.find((u) => run.prs.some((p) => p.entryId === u.entryIds[0]));
    if (suspect) {
      // Single mode, a suspect the walk went past: nothing tested with it before can prove it any
      // more. Its rerun goes on, but only to say whether it re-enters at the tail; so do the
      // prefix runs of a stack being bisected.
      if (isInFlight(run) && decidingRun(d, suspect) === run) markOvertaken(s, suspect, label);
      else if (run.kind === 'bisection' && run.unitId === suspect.id) continue;
      else if (!proofIds.has(run.id)) s.emit({ type: 'cancelRun', runId: run.id, reason: `${label} merged past it` });
      continue;
    }
    if (runUnit && isLanding(d, runUnit)) continue;
    // Parallel mode: only runs holding a unit that depends on it had to test it.
    if (dependent && at !== undefined && !holdsDependent(d, dependent, run, at)) continue;
    if (!proofIds.has(run.id)) s.emit({ type: 'cancelRun', runId: run.id, reason: why.message });
    if (runUnit && d.unitEntries(runUnit).some((e) => e.testRunId === run.id)) restartUnit(s, runUnit, why);
  }
}

function holdsAll(run: TestRun, ids: readonly string[]): boolean {
  if (ids.length === 1) return run.prs.some((p) => p.entryId === ids[0]);
  const inRun = new Set(run.prs.map((p) => p.entryId));
  return ids.every((id) => inRun.has(id));
}

/**
 * Whether the run — its unit, or any unit it holds — depends on the landing unit. Not only its own
 * unit: a batch split since the run was built can leave the run holding a culprit that depends on
 * the landing unit while the run's unit no longer does (it depended on the cleared part).
 */
function holdsDependent(d: Draft, dependent: (k: number) => boolean, run: TestRun, at: number): boolean {
  if (dependent(at)) return true;
  const index = d.unitIndex();
  for (const p of run.prs) {
    const u = d.unitOfEntry(p.entryId);
    const k = u && index.get(u.id);
    if (k !== undefined && k !== at && dependent(k)) return true;
  }
  return false;
}

/** One landing asks about the same units for many runs: each closure is walked once. */
function memoized(f: (k: number) => boolean): (k: number) => boolean {
  const known = new Map<number, boolean>();
  return (k) => {
    let v = known.get(k);
    if (v === undefined) known.set(k, (v = f(k)));
    return v;
  };
}

function dependsOn(landing: GraphPosition, k: number): boolean {
  if (k <= landing.index || !landing.graph.isIncluded(k)) return false;
  return landing.graph.closureAhead(k).includes(landing.index);
}

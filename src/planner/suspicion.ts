import type { Entry } from '../domain/entry.js';
import type { ReasonCode } from '../domain/reasons.js';
import type { Unit } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import type { Draft } from './draft.js';
import { decidingRun, isProven } from './units.js';

/**
 * How much failing evidence confirms a suspect. Its own failure counts 1. A further failed run that
 * contains it counts by how little else it could blame: 1 if it adds at most one unproven PR to what
 * the suspect's own failing run held (its rerun; the run of the unit right behind it), 1/2 for two,
 * 1/4 for three or four, nothing beyond. After one failure a PR is bad with odds of about 1:2 (at 5%
 * bad PRs and 10% flaky runs); one strong further failure multiplies them by about 7 (~80% sure).
 * Tuned with the simulation in test/planner/queue-sim.ts: a higher bar left the PRs behind a bad PR
 * waiting longer than the few wrongly excluded flakes cost.
 */
const CONFIRMING_WEIGHT = 2;

/**
 * How sure the queue is that a suspect is the culprit. One failure is weak evidence: at a 10% flake
 * rate most failures are flakes, and rebuilding every unit behind it would cost each of them a CI
 * cycle for nothing. More failures confirm it (weighed as above); so does a conflict building its
 * branch — once everything ahead of it in its run is proven good: until then, that explains its
 * failures as well — and, in single mode, so does bisection naming it the culprit of its batch. A
 * pass of any run containing it clears it instead (it merges). The planner records the confirmation
 * (`failure_confirmed`), so that it never flips back.
 */
export function failureIsConfirmed(d: Draft, suspect: Unit): boolean {
  const first = suspect.entryIds[0];
  const e = first === undefined ? undefined : d.entry(first);
  if (!e) return true;
  // Single mode: bisection narrowed its batch's failure down to it (the prefix before it passed).
  // A parallel lane keeps it while it is rerun instead (rule 6), which measured better there.
  const codes: ReasonCode[] = d.settings.mode === 'parallel' ? ['failure_confirmed'] : ['failure_confirmed', 'bisection_culprit'];
  return reasonSinceTesting(e, codes);
}

/** Whether PRs merged past the entry since it last started testing (see phases/merging.ts). */
export function wasOvertaken(e: Entry): boolean {
  return reasonSinceTesting(e, ['overtaken']);
}

/** Whether one of `codes` was recorded since the entry last started testing. */
function reasonSinceTesting(e: Entry, codes: readonly ReasonCode[]): boolean {
  for (let i = e.history.length - 1; i >= 0; i--) {
    const t = e.history[i]!;
    if (t.state === 'TESTING') return false;
    if (codes.includes(t.reason.code)) return true;
  }
  return false;
}

/** Whether the evidence now confirms the suspect's failure (see `failureIsConfirmed`). */
export function evidenceConfirmsFailure(d: Draft, suspect: Unit): boolean {
  const first = suspect.entryIds[0];
  const own = decidingRun(d, suspect);
  if (first === undefined || !own) return true;
  const since = testingSince(d.entry(first)!.history);
  const ownContent = new Set(own.prs.map((p) => p.entryId));
  // While a PR ahead of it in its run is unproven, that PR explains its failures as well as it does.
  for (const p of own.prs) {
    if (suspect.entryIds.includes(p.entryId)) break;
    const e = d.entry(p.entryId);
    if (!isProven(e)) return false;
  }
  let weight = 0;
  for (const run of d.runs.values()) {
    if (run.status !== 'failed' && run.status !== 'timed_out') continue;
    if (run.createdAt < since || !run.prs.some((p) => p.entryId === first)) continue;
    if (run.conflictEntryId && suspect.entryIds.includes(run.conflictEntryId)) return true;
    weight += evidenceWeight(unprovenBeyond(d, run, ownContent));
    if (weight >= CONFIRMING_WEIGHT) return true;
  }
  return false;
}

function evidenceWeight(added: number): number {
  if (added <= 1) return 1;
  if (added === 2) return 0.5;
  if (added <= 4) return 0.25;
  return 0;
}

/** PRs in `run`, outside the suspect's own failing content, that are not proven good. */
function unprovenBeyond(d: Draft, run: TestRun, suspectContent: ReadonlySet<string>): number {
  let n = 0;
  for (const p of run.prs) {
    if (suspectContent.has(p.entryId)) continue;
    const e = d.entry(p.entryId);
    if (!isProven(e)) n++;
  }
  return n;
}

/** When the entry last started testing (its suspicion began with a run created then or later). */
function testingSince(history: readonly { state: string; at: string }[]): string {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.state === 'TESTING') return history[i]!.at;
  return '';
}

/**
 * Whether the run of the unit at `index` leaves the suspect at `suspectIndex` out (rule 4). Units
 * beyond the first `pendingFailureDepth` behind it do at once. The ones within keep it (their results
 * are its flake evidence) until its failure is corroborated — with `canOptimisticallyMerge` only,
 * where one of those results passing merges it; without, they are rebuilt at once too.
 */
export class SuspectExclusion {
  constructor(private readonly d: Draft) {}

  excludes(suspect: Unit, suspectIndex: number, index: number): boolean {
    // Parallel mode: its lane keeps it while it is rerun for a failure of its own (rule 6); a failure
    // with PRs ahead still unproven (rule 4) or a confirmed one sends the lane on without it at once.
    if (this.d.settings.mode === 'parallel') return failureIsConfirmed(this.d, suspect) || suspectedBeforeAheadWasProven(this.d, suspect);
    if (!this.d.settings.canOptimisticallyMerge) return true;
    if (index - suspectIndex > this.d.settings.pendingFailureDepth) return true;
    // A failed batch is kept until bisection has split it: rebuilding without all of it would
    // leave out its good PRs too, and rebuild once more when they come back. Not one holding a
    // stack: its bisection waits for the units ahead (suspects.ts), and a unit behind that kept it
    // meanwhile would repeat its failure (docs/stacks.md, "When the unit fails").
    if (isUnsplitBatch(suspect)) return holdsStack(this.d, suspect);
    return failureIsConfirmed(this.d, suspect);
  }
}

/** Whether a unit holds members of a stack (a stack unit, or a batch that took one in whole). */
export function holdsStack(d: Draft, unit: Unit): boolean {
  return unit.entryIds.some((id) => d.entry(id)?.stack !== undefined);
}

/** A suspect batch of several PRs, which bisection has yet to split (single mode keeps it, see above). */
export function isUnsplitBatch(suspect: Unit): boolean {
  return suspect.entryIds.length > 1;
}

/**
 * Whether the unit became a suspect while PRs ahead of it in its run were unproven (rule 4, reason
 * `suspect`) rather than for a failure of its own (rule 6). Read from its history, so that the answer
 * does not flip when those PRs resolve.
 */
function suspectedBeforeAheadWasProven(d: Draft, unit: Unit): boolean {
  const first = unit.entryIds[0];
  const history = first === undefined ? [] : (d.entry(first)?.history ?? []);
  let code: string | null = null;
  for (let i = history.length - 1; i >= 0; i--) {
    const t = history[i]!;
    if (t.state === 'TESTING') break;
    if (t.state === 'PENDING_FAILURE') code = t.reason.code;
  }
  return code === 'suspect';
}

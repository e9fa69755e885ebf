import type { Entry } from '../domain/entry.js';
import type { Unit } from '../domain/queue.js';
import type { PrState } from '../domain/states.js';
import type { TestRun } from '../domain/run.js';
import type { Draft } from './draft.js';

/** The state of a unit: its entries move together, so the first one speaks for all. */
export function unitState(d: Draft, unit: Unit): PrState | undefined {
  const first = unit.entryIds[0];
  return first === undefined ? undefined : d.entry(first)?.state;
}

/** A unit whose run failed and that the queue no longer builds on until it is resolved (rule 4). */
export function isSuspect(d: Draft, unit: Unit): boolean {
  return unitState(d, unit) === 'PENDING_FAILURE';
}

export function isPending(d: Draft, unit: Unit): boolean {
  return unitState(d, unit) === 'PENDING';
}

export function unitPriority(d: Draft, unit: Unit): number {
  let p = Infinity;
  for (const e of d.unitEntries(unit)) p = Math.min(p, e.priorityValue);
  return p;
}

/** The run deciding the unit now. */
export function decidingRun(d: Draft, unit: Unit): TestRun | undefined {
  const first = unit.entryIds[0];
  return first === undefined ? undefined : d.run(d.entry(first)?.testRunId);
}

export function isRemoved(e: Entry | undefined): boolean {
  return !e || e.state === 'FAILED' || e.state === 'CANCELLED';
}

/** Merged, or about to be (the merge is decided and in the engine's hands). */
export function isLanded(e: Entry | undefined): boolean {
  return !!e && (e.state === 'MERGED' || e.mergeIntent !== null);
}

/** Proven good: merged or about to be, or passed in a run with everything ahead of it. */
export function isProven(e: Entry | undefined): boolean {
  return isLanded(e) || e?.state === 'TESTS_PASSED';
}

/** The entries of a run that come before the unit's own (its dependencies). */
export function entriesBefore(run: TestRun, unit: Unit): string[] {
  const own = new Set(unit.entryIds);
  const out: string[] = [];
  for (const p of run.prs) {
    if (own.has(p.entryId)) break;
    out.push(p.entryId);
  }
  return out;
}

export function prLabel(e: Entry | undefined, fallbackId: string): string {
  return e ? `#${e.prNumber}` : `entry ${fallbackId}`;
}

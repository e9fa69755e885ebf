import type { TestRun } from '../../src/domain/run.js';

/** The moment the ETA tests estimate at, and times relative to it. */
export const NOW = new Date('2026-11-22T10:00:00.000Z');
export const MIN = 60_000;
export const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN).toISOString();

/** A first main run of unit `unit` from `from` to `to` minutes (relative to NOW; `to` null: still in flight), holding `prs` (the last one its own). */
export function ended(id: string, unit: string, from: number, to: number | null, status: TestRun['status'], prs: string[]): TestRun {
  return {
    id,
    unitId: unit,
    kind: 'main',
    status,
    attempt: 0,
    createdAt: at(from),
    finishedAt: to === null ? null : at(to),
    prs: prs.map((entryId) => ({ entryId })),
    dependencyEntryIds: prs.slice(0, -1),
  } as TestRun;
}

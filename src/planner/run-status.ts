import { isInFlight, type TestRun } from '../domain/run.js';

/** In flight, or passed and so still usable as a proof until it is dropped. */
export function isLiveOrPassed(run: TestRun): boolean {
  return isInFlight(run) || run.status === 'passed';
}

export function containsEntry(run: TestRun, entryId: string): boolean {
  return run.prs.some((p) => p.entryId === entryId);
}

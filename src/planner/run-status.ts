import type { TestRun } from '../domain/run.js';

/** Written or running: its verdict is still to come. */
export function isLive(run: TestRun): boolean {
  return run.status === 'creating' || run.status === 'pending';
}

/** Live, or passed and so still usable as a proof until it is dropped. */
export function isLiveOrPassed(run: TestRun): boolean {
  return isLive(run) || run.status === 'passed';
}

export function containsEntry(run: TestRun, entryId: string): boolean {
  return run.prs.some((p) => p.entryId === entryId);
}

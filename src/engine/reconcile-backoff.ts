/**
 * A failed reconcile of a queue is tried again after 1 s, 2 s, 4 s, … at most 60 s (controller-runtime
 * requeues a failed key the same way), not at the next poll; a reconcile that succeeds ends the streak.
 * The cap is the longest poll interval: a queue that keeps failing is tried no less often than polling
 * would try it.
 */
export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 60_000;

/** The wait before the next try, after `failures` failures in a row (1 or more). */
export function retryDelayMs(failures: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 30));
}

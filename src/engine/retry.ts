import type { Scheduler } from '../domain/scheduler.js';

/** Network failures worth another try. */
const TRANSIENT_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a git host error may go away by itself: an error that says so (`transient: true`), an HTTP
 * status of 429 or 5xx (also 403 when it is a rate limit), or a network failure.
 */
export function isTransient(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { transient?: unknown; status?: unknown; code?: unknown; message?: unknown };
  if (e.transient === true) return true;
  if (typeof e.status === 'number') {
    if (e.status === 429 || (e.status >= 500 && e.status <= 599)) return true;
    if (e.status === 403 && typeof e.message === 'string' && /rate limit/i.test(e.message)) return true;
  }
  return typeof e.code === 'string' && TRANSIENT_CODES.has(e.code);
}

export interface RetryPolicy {
  /** Waits before the 2nd, 3rd, ... attempt; its length is the number of retries. */
  delaysMs: readonly number[];
}

export const DEFAULT_RETRY: RetryPolicy = { delaysMs: [1_000, 5_000, 15_000] };

/** Calls `fn`, retrying transient errors after the policy's delays; the last error is thrown. */
export async function withRetry<T>(fn: () => Promise<T>, policy: RetryPolicy, scheduler: Scheduler): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const delay = policy.delaysMs[attempt];
      if (delay === undefined || !isTransient(error)) throw error;
      if (delay > 0) await new Promise<void>((resolve) => scheduler.schedule(delay, resolve));
    }
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

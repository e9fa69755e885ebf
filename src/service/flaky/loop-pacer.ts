import { performance } from 'node:perf_hooks';

/** Work of one request between two turns of the event loop, at most (roughly: a step is not cut). */
export const LOOP_SLICE_MS = 10;

/**
 * For long work done in steps on the event loop: `await pace()` between steps lets other requests
 * (health checks, API calls) run whenever the work has held the loop for `sliceMs` since it last let go.
 */
export function loopPacer(sliceMs = LOOP_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await turnLoop();
    since = performance.now();
  };
}

/** Resolves once the event loop has turned (after the I/O and timers waiting now). */
export function turnLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** What `read` answers for all the ids, asked `size` at a time, letting the event loop turn between. */
export async function inBatches<T>(size: number, ids: string[], read: (batch: string[]) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let at = 0; at < ids.length; at += size) {
    if (at > 0) await turnLoop();
    all.push(...(await read(ids.slice(at, at + size))));
  }
  return all;
}

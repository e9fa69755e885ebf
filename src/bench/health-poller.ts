import { Worker } from 'node:worker_threads';

export interface HealthPoller {
  /** Stops polling; the latency of each /healthz asked since the poller connected, in ms. */
  stop(): Promise<number[]>;
}

/**
 * GET /healthz every `everyMs` from a worker thread, over one keep-alive connection opened (with a
 * first, uncounted request) before this resolves, as a monitor that is already connected when an
 * attack starts. For attacks that keep the bench's own event loop busy (the refusal flood writes
 * to 50 sockets at once), which would otherwise delay the polls and be counted as the server's.
 */
export async function pollHealthApart(port: number, everyMs: number): Promise<HealthPoller> {
  const worker = new Worker(new URL('./health-poll-worker.js', import.meta.url), { workerData: { port, everyMs } });
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const latencies = new Promise<number[]>((resolve, reject) => {
    worker.on('message', (message: number[] | 'connected') => (message === 'connected' ? connected() : resolve(message)));
    worker.once('error', reject);
  });
  await Promise.race([ready, latencies]);
  return {
    async stop() {
      worker.postMessage('stop');
      const result = await latencies;
      await worker.terminate();
      return result;
    },
  };
}

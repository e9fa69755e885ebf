import { Worker } from 'node:worker_threads';

/**
 * GET /healthz every `everyMs` from a worker thread until `stop` resolves; the latency of each, in
 * ms. For attacks that keep the bench's own event loop busy (the refusal flood writes to 50
 * sockets at once), which would otherwise delay the polls and be counted as the server's.
 */
export async function pollHealthApart(port: number, everyMs: number, stop: Promise<unknown>): Promise<number[]> {
  const worker = new Worker(new URL('./health-poll-worker.js', import.meta.url), { workerData: { port, everyMs } });
  const latencies = new Promise<number[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await stop;
  worker.postMessage('stop');
  const result = await latencies;
  await worker.terminate();
  return result;
}

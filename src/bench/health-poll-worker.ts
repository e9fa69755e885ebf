import { parentPort, workerData } from 'node:worker_threads';
import { pollHealth } from './abuse-attacks.js';

/**
 * pollHealth on a thread of its own (health-poller.ts): the latencies it measures are the server's,
 * not the attacking process's own event loop, busy writing the attack's bodies.
 */
const { port, everyMs } = workerData as { port: number; everyMs: number };
const stop = new Promise<void>((resolve) => parentPort!.once('message', () => resolve()));
parentPort!.postMessage(await pollHealth(port, everyMs, stop, () => parentPort!.postMessage('connected')));

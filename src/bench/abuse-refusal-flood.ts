import { readFileSync } from 'node:fs';
import net from 'node:net';
import { MiB, percentile } from './abuse-attacks.js';
import type { Ask } from './abuse-flaky-upload.js';
import { pollHealthApart } from './health-poller.js';

/**
 * The early-refusal flood of `npm run bench:abuse`: many connections each declare a 200 MiB body to
 * a route that refuses it on its headers (401 without a token, 404, 415, the page's 401, the GitHub
 * webhook endpoint's 400), then send as fast as the connection takes it. The server must answer
 * with `Connection: close` and stop reading. Bytes read per connection come from the server
 * process's read syscalls (/proc/<pid>/io `rchar`), so kernel buffers do not count. /healthz is
 * polled from a thread of its own (this process's loop is busy writing) over a connection opened
 * before the flood, and the server reports its longest event-loop stall meanwhile.
 */

const CONNECTIONS = 1_000;
const AT_ONCE = 50;
const DECLARED = 200 * MiB;
/** A client stops here if the server never closes: enough to tell reading from not reading. */
const CLIENT_CAP = 16 * MiB;
const PACE_MS = 5;
const TARGETS = { bytesReadPerConnection: MiB, healthP99Ms: 50, loopStallMs: 100 };

const ROUTES = (token: string) => [
  'POST /v1/createQueue HTTP/1.1\r\nContent-Type: application/json',
  'POST /v1/noSuchOperation HTTP/1.1\r\nContent-Type: application/json',
  `POST /v1/createQueue HTTP/1.1\r\nContent-Type: text/plain\r\nx-api-token: ${token}`,
  'POST /ui/api/queue/state HTTP/1.1\r\nContent-Type: application/json',
  'POST /api/github/webhooks HTTP/1.1\r\nContent-Type: application/json\r\nx-github-event: push\r\nx-github-delivery: flood',
];

interface Refused {
  status: string;
  closedByServer: boolean;
  sentAfterAnswer: number;
}

/** One connection: headers, then the body until the server closes (or the client's cap). */
function refusedUpload(port: number, head: string): Promise<Refused> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let answeredAt: number | null = null;
    let sent = 0;
    let closed = false;
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      answeredAt ??= sent;
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      closed = true;
      resolve({ status: answer.slice(9, 12) || 'reset before the answer was read', closedByServer: sent < CLIENT_CAP, sentAfterAnswer: sent - (answeredAt ?? sent) });
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nContent-Length: ${DECLARED}\r\n\r\n`);
    // 64 KiB every 5 ms (about 13 MB/s per connection, 650 MB/s for 50): a steady upload, not a
    // burst that would only measure this machine's loopback copying.
    const pump = () => {
      if (closed) return;
      if (sent >= CLIENT_CAP) return void socket.destroy();
      sent += chunk.length;
      if (socket.write(chunk)) setTimeout(pump, PACE_MS);
      else socket.once('drain', pump);
    };
    pump();
  });
}

function bytesReadBy(pid: number): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return match ? Number(match[1]) : NaN;
}

/** Runs the flood against the server (`pid` on `port`) and prints its figures; false when over a target. */
export async function refusalFlood(target: { port: number; pid: number; token: string }, ask: Ask): Promise<boolean> {
  const routes = ROUTES(target.token);
  const poller = await pollHealthApart(target.port, 20);
  await ask({ type: 'start', rss: false }, 'started');
  const readBefore = bytesReadBy(target.pid);
  const started = Date.now();
  let next = 0;
  const results: Refused[] = [];
  const worker = async () => {
    while (next < CONNECTIONS) results.push(await refusedUpload(target.port, routes[next++ % routes.length]!));
  };
  const flood = Promise.all(Array.from({ length: AT_ONCE }, worker));
  await flood;
  const latencies = await poller.stop();
  const { maxLoopDelayMs } = await ask({ type: 'report' }, 'report');
  const perConnection = (bytesReadBy(target.pid) - readBefore) / CONNECTIONS;
  const p99 = percentile(latencies, 99);

  const statuses = new Map<string, number>();
  for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
  const closed = results.filter((r) => r.closedByServer).length;
  const ok = perConnection <= TARGETS.bytesReadPerConnection && p99 < TARGETS.healthP99Ms && maxLoopDelayMs < TARGETS.loopStallMs;
  const verdict = (fine: boolean) => (fine ? 'ok' : 'OVER TARGET');
  console.log(`  early-refusal flood: ${CONNECTIONS} connections (${AT_ONCE} at once) declaring 200 MiB each, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`    answers ${[...statuses].map(([s, n]) => `${n}× ${s}`).join(', ')}; closed by the server ${closed} of ${CONNECTIONS}`);
  console.log(`    bytes read by the server per connection ${(perConnection / 1024).toFixed(0)} KiB   target ≤ ${TARGETS.bytesReadPerConnection / 1024} KiB   ${verdict(perConnection <= TARGETS.bytesReadPerConnection)}`);
  console.log(`    /healthz p99 during it ${p99.toFixed(1)} ms over ${latencies.length} requests (max ${Math.max(...latencies).toFixed(1)})   target < ${TARGETS.healthP99Ms}   ${verdict(p99 < TARGETS.healthP99Ms)}`);
  console.log(`    longest event-loop stall ${maxLoopDelayMs.toFixed(1)} ms   target < ${TARGETS.loopStallMs}   ${verdict(maxLoopDelayMs < TARGETS.loopStallMs)}`);
  return ok;
}

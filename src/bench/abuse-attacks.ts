import http from 'node:http';

const MiB = 1024 * 1024;

export interface AttackResult {
  /** The status answered, or the client-side error when the server cut the connection first. */
  outcome: string;
}

/**
 * POSTs `total` bytes made of `chunk` repeated (streamed: the client never holds the whole body),
 * optionally stopping after `stallAfter` bytes and waiting for the answer without sending more.
 */
export function streamBody(opts: {
  port: number;
  path: string;
  headers: Record<string, string>;
  /** Declared length; null sends chunked. */
  declared: number | null;
  total: number;
  chunk: Buffer;
  prefix?: string;
  stallAfter?: number;
}): Promise<AttackResult> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.declared === null) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(opts.declared);
    const req = http.request({ host: '127.0.0.1', port: opts.port, path: opts.path, method: 'POST', headers, agent: false });
    let settled = false;
    let wake: (() => void) | null = null;
    req.on('drain', () => wake?.());
    const done = (outcome: string) => {
      if (settled) return;
      settled = true;
      wake?.();
      req.destroy();
      resolve({ outcome });
    };
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => done(String(res.statusCode)));
      res.on('error', () => done(String(res.statusCode)));
    });
    req.on('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
    void (async () => {
      let sent = 0;
      if (opts.prefix) {
        req.write(opts.prefix);
        sent += Buffer.byteLength(opts.prefix);
      }
      const until = opts.stallAfter ?? opts.total;
      while (sent < until && !settled) {
        const piece = opts.chunk.subarray(0, Math.min(opts.chunk.length, until - sent));
        sent += piece.length;
        if (!req.write(piece)) await new Promise<void>((resolve) => (wake = resolve));
      }
      if (opts.stallAfter === undefined && !settled) req.end();
    })().catch((err: Error) => done(err.message));
  });
}

/** GET /healthz every `everyMs` until `stop` resolves; the latency of each, in ms. */
export async function pollHealth(port: number, everyMs: number, stop: Promise<unknown>, connected?: () => void): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<void>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', () => resolve());
    });
  const latencies: number[] = [];
  let stopped = false;
  void stop.then(() => (stopped = true));
  if (connected) {
    await get();
    connected();
  }
  while (!stopped) {
    const started = performance.now();
    await get();
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  agent.destroy();
  return latencies;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export { MiB };

import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonOptions {
  url: string;
  connections: number;
  duration?: number;
  amount?: number;
  timeout: number;
  requests: AutocannonRequest[];
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}
type Autocannon = (opts: AutocannonOptions, done: (err: Error | null, result: AutocannonResult) => void) => EventEmitter;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSpec {
  /** Base URL, always http://127.0.0.1:<port>. */
  url: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** A fixed body, built once. */
  body?: string | Buffer;
  /** A new body for every request (replaces `body`). */
  nextBody?: () => string;
  connections: number;
  /** Run for this many seconds… */
  durationSec?: number;
  /** …or send exactly this many requests. */
  amount?: number;
  timeoutSec: number;
}

export interface LoadResult {
  /** 2xx responses per second of wall time: failed requests do not count as throughput. */
  requestsPerSec: number;
  /** Latency percentiles of 2xx responses, in ms, at sub-millisecond resolution. */
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  wallSec: number;
  /** Every 2xx latency, sorted, so that runs can be pooled. */
  latenciesMs: number[];
}

/**
 * One autocannon run. Latencies are collected from its per-response events rather than its
 * histogram, which records whole milliseconds: a hello-world p50 would read as 0 or 1 ms.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(spec.url)) throw new Error(`refusing to load anything but 127.0.0.1 (got ${spec.url})`);
  const request: AutocannonRequest = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers ?? {},
    ...(spec.body === undefined ? {} : { body: spec.body }),
  };
  const nextBody = spec.nextBody;
  if (nextBody) request.setupRequest = (req) => ({ ...req, body: nextBody() });

  const latencies: number[] = [];
  const startedAt = performance.now();
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        timeout: spec.timeoutSec,
        requests: [request],
        ...(spec.amount === undefined ? { duration: spec.durationSec ?? 5 } : { amount: spec.amount }),
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    });
  });
  const wallSec = (performance.now() - startedAt) / 1000;

  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
  return summarize(latencies, { non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts, statusCodes, wallSec });
}

/** Several runs of one case as if they were one: latencies pooled, throughput over their summed wall time. */
export function poolLoads(runs: readonly LoadResult[]): LoadResult {
  const statusCodes: Record<string, number> = {};
  for (const run of runs) for (const [code, n] of Object.entries(run.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const sum = (f: (r: LoadResult) => number) => runs.reduce((acc, r) => acc + f(r), 0);
  return summarize(
    runs.flatMap((r) => r.latenciesMs),
    { non2xx: sum((r) => r.non2xx), errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts), statusCodes, wallSec: sum((r) => r.wallSec) },
  );
}

function summarize(latencies: number[], rest: Pick<LoadResult, 'non2xx' | 'errors' | 'timeouts' | 'statusCodes' | 'wallSec'>): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSec: latencies.length / rest.wallSec,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ok: latencies.length,
    ...rest,
    latenciesMs: latencies,
  };
}

/** Nearest-rank percentile of sorted values; NaN when there are none. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

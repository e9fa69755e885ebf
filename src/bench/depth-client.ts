import { Agent, request } from 'node:http';
import { RECONCILE_METRIC } from '../metrics/reconcile-durations.js';

export const DEPTH_REPO = { host: 'github.com', owner: 'bench', name: 'depth' } as const;
export const DEPTH_BRANCH = 'main';
const RETRIES = 10;

/** Cumulative bucket counts of the queue's reconcile histogram, by upper bound (`+Inf` last). */
export interface HistogramSnapshot {
  bounds: number[];
  cumulative: number[];
  count: number;
}

/** An answer outside 2xx. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The service's REST API and sandbox routes as the benchmark calls them: one keep-alive connection,
 * so a latency is the server's work plus one loopback round trip.
 */
export class DepthClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async v1<T = unknown>(operation: string, body: object): Promise<T> {
    return this.call<T>('POST', `/v1/${operation}`, body);
  }

  async openPullRequest(title: string, ciMinutes: number): Promise<number> {
    const pr = await this.call<{ number: number }>('POST', '/sandbox/pulls', { repo: DEPTH_REPO, title, ciMinutes });
    return pr.number;
  }

  async pulls(): Promise<{ number: number; state: string; mergedAt: string | null }[]> {
    const query = new URLSearchParams({ host: DEPTH_REPO.host, owner: DEPTH_REPO.owner, name: DEPTH_REPO.name });
    return (await this.call<{ pulls: { number: number; state: string; mergedAt: string | null }[] }>('GET', `/sandbox/pulls?${query}`)).pulls;
  }

  async reconcileHistogram(): Promise<HistogramSnapshot> {
    const query = new URLSearchParams({ repo: `${DEPTH_REPO.owner}/${DEPTH_REPO.name}`, repoHost: DEPTH_REPO.host });
    const text = await this.call<string>('GET', `/v1/getMergeQueueMetrics?${query}`, undefined, 'text');
    const buckets = [...text.matchAll(new RegExp(`^${RECONCILE_METRIC}_bucket\\{[^}]*le="([^"]+)"\\} (\\S+)$`, 'gm'))];
    if (buckets.length === 0) throw new Error(`the service exposes no ${RECONCILE_METRIC} (it predates the reconcile histogram)`);
    const bounds = buckets.map((m) => (m[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(m[1])));
    const cumulative = buckets.map((m) => Number(m[2]));
    return { bounds, cumulative, count: cumulative[cumulative.length - 1] ?? 0 };
  }

  close(): void {
    this.agent.destroy();
  }

  /** Calls the server could not take (a reset connection, a 408 when it was too busy to read one in time). */
  unanswered = 0;

  /**
   * Every call the benchmark makes may be repeated (a re-submit of an active PR answers its record):
   * one the server could not take is sent again, a second later, up to RETRIES times.
   */
  private async call<T>(method: 'GET' | 'POST', path: string, body?: object, as: 'json' | 'text' = 'json'): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send<T>(method, path, body, as);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const retriable = code === 'ECONNRESET' || code === 'EPIPE' || (err instanceof HttpStatusError && err.status === 408);
        if (!retriable || attempt === RETRIES) throw err;
        this.unanswered += 1;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private send<T>(method: 'GET' | 'POST', path: string, body: object | undefined, as: 'json' | 'text'): Promise<T> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise<T>((resolve, reject) => {
      const req = request(
        `${this.url}${path}`,
        {
          method,
          agent: this.agent,
          headers: { 'x-api-token': this.token, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 300) return reject(new HttpStatusError(status, `${method} ${path} answered ${status}: ${text.slice(0, 500)}`));
            try {
              resolve((as === 'json' ? JSON.parse(text) : text) as T);
            } catch (err) {
              reject(err as Error);
            }
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
}

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ReceiverNetworks } from './receiver-networks.js';
import { resolveReceiver, type Lookup } from './resolve-receiver.js';

export type PostResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

export interface PostOptions {
  networks: ReceiverNetworks;
  timeoutMs: number;
  stop?: AbortSignal | undefined;
  lookup?: Lookup;
}

/**
 * What the delivery log says of a failure: never the receiver's own words (its error text, a TLS
 * alert, a banner), so the log cannot serve to probe what listens where.
 */
const REFUSALS = {
  private: 'refused: private address',
  http: 'refused: http outside the allowed networks',
  unresolved: 'connection failed: the host name does not resolve',
} as const;

/**
 * One POST through the SSRF guard: any answer but 2xx (redirects included) is a failure. The
 * receiver's name is resolved and checked here, and the connection goes to that checked address (the
 * lookup is pinned), whatever the name resolves to a moment later. The answer's body is never read.
 */
export async function guardedPost(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const target = await resolveReceiver(url, options.networks, options.lookup);
  if (!target.ok) return { ok: false, status: null, error: REFUSALS[target.refusal] };

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.stop ? AbortSignal.any([timeout, options.stop]) : timeout;
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise<PostResult>((resolve) => {
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup: pinned, signal },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not read: a receiver cannot keep the dispatcher busy with it.
        res.destroy();
        resolve(status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `the receiver answered ${status}` });
      },
    );
    request.on('error', () => {
      const error = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : signal.aborted ? 'stopped' : 'connection failed';
      resolve({ ok: false, status: null, error });
    });
    request.end(body);
  });
}

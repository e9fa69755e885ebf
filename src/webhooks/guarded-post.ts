import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { ChatPart } from '../domain/webhook-delivery.js';
import type { ReceiverNetworks } from './receiver-networks.js';
import { resolveReceiver, type Lookup } from './resolve-receiver.js';

export type PostResult =
  | { ok: true; status: number; sent?: ChatPart[] }
  | {
      ok: false;
      status: number | null;
      error: string;
      /** What was sent before the failure: a later attempt does not send it again. */
      sent?: ChatPart[];
      /** The receiver asked to wait this long (Slack's Retry-After): the next attempt waits at least this. */
      retryAfterMs?: number;
    };

export interface PostOptions {
  networks: ReceiverNetworks;
  timeoutMs: number;
  stop?: AbortSignal | undefined;
  lookup?: Lookup;
}

/** An answer read whole: what Slack's Web API client needs (its JSON says whether the call worked). */
export type Exchange =
  | { ok: true; status: number; headers: Record<string, string>; body: string }
  | { ok: false; status: null; error: string };

/**
 * What the delivery log says of a failure: never the receiver's own words (its error text, a TLS
 * alert, a banner), so the log cannot serve to probe what listens where.
 */
const REFUSALS = {
  private: 'refused: private address',
  http: 'refused: http outside the allowed networks',
  unresolved: 'connection failed: the host name does not resolve',
} as const;

/** The most of an answer read (Slack's answers to chat.postMessage are a few hundred bytes). */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * One POST through the SSRF guard: any answer but 2xx (redirects included) is a failure. The
 * receiver's name is resolved and checked here, and the connection goes to that checked address (the
 * lookup is pinned), whatever the name resolves to a moment later. The answer's body is never read.
 */
export async function guardedPost(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  const answer = await guardedRequest(url, headers, body, options, false);
  if (!answer.ok) return answer;
  const { status } = answer;
  return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, error: `the receiver answered ${status}` };
}

/** One POST through the same guard whose answer is read (at most 256 KiB), for an API client (Slack's Web API). */
export function guardedExchange(url: URL, headers: Record<string, string>, body: string, options: PostOptions): Promise<Exchange> {
  return guardedRequest(url, headers, body, options, true);
}

async function guardedRequest(url: URL, headers: Record<string, string>, body: string, options: PostOptions, read: boolean): Promise<Exchange> {
  const target = await resolveReceiver(url, options.networks, options.lookup);
  if (!target.ok) return { ok: false, status: null, error: REFUSALS[target.refusal] };

  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.stop ? AbortSignal.any([timeout, options.stop]) : timeout;
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return new Promise<Exchange>((resolve) => {
    const failed = () => {
      const error = timeout.aborted ? `no answer within ${options.timeoutMs} ms` : signal.aborted ? 'stopped' : 'connection failed';
      resolve({ ok: false, status: null, error });
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup: pinned, signal },
      (res) => {
        const status = res.statusCode ?? 0;
        const answerHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
        // A webhook's answer is not read: a receiver cannot keep the dispatcher busy with it.
        if (!read) {
          res.destroy();
          return resolve({ ok: true, status, headers: answerHeaders, body: '' });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) {
            res.destroy();
            return resolve({ ok: false, status: null, error: 'the answer was too large' });
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ ok: true, status, headers: answerHeaders, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', failed);
      },
    );
    request.on('error', failed);
    request.end(body);
  });
}

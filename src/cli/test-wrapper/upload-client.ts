import type { RepoRef } from '../../domain/repo.js';
import type { UploadAnswer } from '../../domain/flaky.js';
import { describeNetworkError, problemDetail } from '../api-client.js';

/** flaky-tests.md: 5 attempts with backoff, 30 s each. */
export const UPLOAD_ATTEMPTS = 5;
export const UPLOAD_TIMEOUT_MS = 30_000;
export const DEFAULT_BACKOFF_MS = 1000;

export interface UploadRequest {
  repo: RepoRef;
  commitSha: string;
  branch: string | null;
  prNumber: number | null;
  jobName: string | null;
  variant: string | null;
  uploadId: string;
  junitXml: string[];
  pathRoot: string | null;
}

export type UploadOutcome =
  | { kind: 'ok'; answer: UploadAnswer }
  /** 401/403: the token is wrong; retrying will not help. */
  | { kind: 'denied'; status: number; detail: string }
  /** Another 4xx: the service refused these results (malformed XML, too many tests). */
  | { kind: 'rejected'; status: number; detail: string }
  /** Unreachable, timed out, or 5xx after every attempt. */
  | { kind: 'unavailable'; detail: string };

export interface UploadClientOptions {
  url: string;
  token: string;
  /** First wait between attempts; doubled each time. */
  backoffMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** POST /v1/flaky-tests/upload, retrying what may pass on a later attempt (network errors, 5xx, 429). */
export async function uploadResults(req: UploadRequest, options: UploadClientOptions): Promise<UploadOutcome> {
  const endpoint = `${options.url.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/flaky-tests/upload`;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const body = JSON.stringify(req);
  let last = 'no attempt made';
  for (let attempt = 1; attempt <= UPLOAD_ATTEMPTS; attempt++) {
    if (attempt > 1) await sleep(backoff * 2 ** (attempt - 2));
    try {
      const res = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': options.token },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? UPLOAD_TIMEOUT_MS),
      });
      const text = await res.text();
      if (res.status === 200) return { kind: 'ok', answer: JSON.parse(text) as UploadAnswer };
      const detail = `HTTP ${res.status}: ${problemDetail(text)}`;
      if (res.status === 401 || res.status === 403) return { kind: 'denied', status: res.status, detail };
      if (res.status >= 500 || res.status === 429) {
        last = detail;
        continue;
      }
      return { kind: 'rejected', status: res.status, detail };
    } catch (err) {
      last = describeNetworkError(err);
    }
  }
  return { kind: 'unavailable', detail: `${last} (after ${UPLOAD_ATTEMPTS} attempts)` };
}

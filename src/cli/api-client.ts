import type { Command } from 'commander';
import { ServiceError } from '../service/errors.js';
import type { CliContext } from './cli-context.js';
import { usageError } from './usage-error.js';

const REQUEST_TIMEOUT_MS = 30_000;

export interface ApiOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** `--url`, `--token` (over MERGEQ_URL, MERGEQ_TOKEN) and `--json`: the options of every command that calls the REST API. */
export function addApiOptions(cmd: Command): Command {
  return cmd
    .option('--url <url>', 'the service, e.g. https://mergeq.example.com (default: MERGEQ_URL)')
    .option('--token <token>', 'an API token (default: MERGEQ_TOKEN, which keeps it out of the process list)')
    .option('--json', 'print the JSON answer instead of text');
}

/** POSTs operations of /v1 with the caller's token; an error answer becomes a ServiceError carrying its problem detail. */
export class ApiClient {
  private constructor(
    readonly url: string,
    private readonly token: string,
  ) {}

  static from(ctx: CliContext, options: ApiOptions): ApiClient {
    const url = (options.url ?? ctx.io.env.MERGEQ_URL)?.trim();
    const token = (options.token ?? ctx.io.env.MERGEQ_TOKEN)?.trim();
    const missing = [!url && 'MERGEQ_URL (or --url)', !token && 'MERGEQ_TOKEN (or --token)'].filter(Boolean);
    if (missing.length > 0) throw usageError(`missing ${missing.join(' and ')}: the service's address and an API token (mergeq token create)`);
    return new ApiClient(url!.replace(/\/+$/, '').replace(/\/v1$/, ''), token!);
  }

  async call<T>(operation: string, body: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.url}/v1/${operation}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': this.token },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new Error(`cannot reach the service at ${this.url} (${describeNetworkError(err)}); check MERGEQ_URL`, { cause: err });
    }
    const text = await res.text();
    if (res.status === 200) return JSON.parse(text) as T;
    throw answerError(res.status, text);
  }
}

function answerError(status: number, text: string): ServiceError {
  const problem = parseProblem(text);
  const detail = problemDetail(text);
  if (status === 401) return new ServiceError(status, problem?.code ?? 'unauthorized', 'Unauthorized', `the service refused the token (${detail}); check MERGEQ_TOKEN`);
  return new ServiceError(status, problem?.code ?? 'http_error', problem?.title ?? `HTTP ${status}`, detail, problem?.errors);
}

interface Problem {
  code?: string;
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

function parseProblem(text: string): Problem | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' ? (parsed as Problem) : null;
  } catch {
    return null;
  }
}

/** The problem+json `detail` (else `title`) of an error answer, or the start of a body that is not one. */
export function problemDetail(text: string): string {
  const problem = parseProblem(text);
  return problem?.detail ?? problem?.title ?? text.slice(0, 200);
}

/** A fetch failure in a few words: `ECONNREFUSED`, `the request timed out`. */
export function describeNetworkError(err: unknown): string {
  if (err instanceof Error && err.name === 'TimeoutError') return 'the request timed out';
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

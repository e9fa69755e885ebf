import type { Octokit as CoreOctokit, OctokitOptions } from '@octokit/core';
import { gitHubMessage, httpStatus } from './github-errors.js';
import { NOT_SENT, type WriteBudget } from './write-budget.js';
import { classifyWrite } from './write-class.js';

/**
 * An octokit plugin that sends every content-creating request of an installation client through that
 * installation's write budget (clients authenticated as the App itself, and reads, go straight on).
 * Writes are not retried inside octokit: the budget sends a write refused for a rate limit again after
 * the pause GitHub asks for, and callers retry other failures as they see fit.
 */
export function writeBudgetPlugin(budget: WriteBudget) {
  return (octokit: CoreOctokit, options: OctokitOptions): void => {
    const installation = (options.auth as { installationId?: unknown } | undefined)?.installationId;
    if (typeof installation !== 'number') return;
    octokit.hook.wrap('request', async (request, opts) => {
      const write = classifyWrite(opts.method, opts.url, opts as Record<string, unknown>);
      if (!write) return request(opts);
      const sent = await budget.for(installation).submit({ ...write, send: async () => request({ ...opts, request: { ...opts.request, retries: 0 } }) });
      // Said by a newer write, or dropped: nobody reads the answer of such a write.
      return sent === NOT_SENT ? { status: 202, url: opts.url, headers: {}, data: {} } : sent;
    });
  };
}

/**
 * How long GitHub asks an installation to pause after refusing a write: `retry-after`, else the
 * primary limit's reset, else a minute for a refusal that names a rate limit; null for any other error.
 */
export function rateLimitPauseMs(error: unknown, now: number): number | null {
  const status = httpStatus(error);
  if (status !== 403 && status !== 429) return null;
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
  const retryAfter = Number(headers['retry-after']);
  if (retryAfter > 0) return retryAfter * 1000;
  if (headers['x-ratelimit-remaining'] === '0') {
    const reset = Number(headers['x-ratelimit-reset']);
    return reset > 0 ? Math.max(1000, reset * 1000 - now) : 60_000;
  }
  return status === 429 || /rate limit/i.test(gitHubMessage(error)) ? 60_000 : null;
}

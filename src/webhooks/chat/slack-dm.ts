import { LogLevel, WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebClient, type FetchFunction, type Logger } from '@slack/web-api';
import { guardedExchange, type PostOptions, type PostResult } from '../guarded-post.js';
import type { ChatMessage } from './chat-message.js';
import { fetchHeaders } from './fetch-headers.js';
import { slackBlocks } from './slack-blocks.js';

/** Where Slack's Web API is, unless MERGEQ_SLACK_API_URL points elsewhere (tests, a self-hosted proxy). */
export const SLACK_API_URL = 'https://slack.com/api/';

/** Slack's error codes are short snake_case words; anything else is not repeated in the delivery log. */
const SLACK_ERROR_CODE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A direct message to a Slack member from the channel's app, through Slack's official SDK
 * (`@slack/web-api`): `chat.postMessage` with the member id as the channel (Slack delivers it in the
 * app's direct-message conversation with them; the bot token needs `chat:write`). The SDK sends
 * through the SSRF guard (its `fetch` is guardedExchange), never retries on its own (the dispatcher's
 * schedule does) and logs nothing, so the token is never written anywhere; Slack's `ok:false` is a
 * failed attempt with Slack's error code, a 429 one with its Retry-After.
 */
export async function sendSlackDirectMessage(
  token: string,
  member: string,
  message: ChatMessage,
  options: PostOptions & { apiUrl: string },
): Promise<PostResult> {
  let status: number | null = null;
  const fetch: FetchFunction = async (url, init) => {
    const answer = await guardedExchange(new URL(String(url)), fetchHeaders(init?.headers), String(init?.body ?? ''), options);
    if (!answer.ok) throw new Error(answer.error);
    status = answer.status;
    if (answer.status < 200 || answer.status > 599) throw new Error(`Slack answered ${answer.status}`);
    const body = [204, 205, 304].includes(answer.status) ? null : answer.body;
    return new Response(body, { status: answer.status, headers: answer.headers }) as unknown as Awaited<ReturnType<FetchFunction>>;
  };
  const client = new WebClient(token, {
    slackApiUrl: options.apiUrl,
    fetch,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    allowAbsoluteUrls: false,
    logger: SILENT,
  });
  try {
    const { text, blocks = [] } = slackBlocks(message);
    await client.chat.postMessage({ channel: member, text, blocks });
    return { ok: true, status: status ?? 200 };
  } catch (err) {
    return failureOf(err, status);
  }
}

/** What the delivery log says: Slack's error code, never its other words nor the request. */
function failureOf(err: unknown, status: number | null): PostResult {
  if (err instanceof WebAPIRateLimitedError) {
    return { ok: false, status: 429, error: `Slack answered ratelimited (retry after ${err.retryAfter} s)`, retryAfterMs: err.retryAfter * 1000 };
  }
  if (err instanceof WebAPIPlatformError) {
    const code = typeof err.data.error === 'string' && SLACK_ERROR_CODE.test(err.data.error) ? err.data.error : 'an unknown error';
    return { ok: false, status, error: `Slack answered ok:false, ${code}` };
  }
  if (err instanceof WebAPIHTTPError) return { ok: false, status: err.statusCode, error: `Slack answered ${err.statusCode}` };
  // guardedExchange's own words (a refusal, a timeout), which the SDK wraps.
  const original = err instanceof Error && 'original' in err && err.original instanceof Error ? err.original.message : null;
  return { ok: false, status: null, error: original ?? 'connection failed' };
}

const SILENT: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => LogLevel.ERROR,
  setName: () => undefined,
};

import type { Clock } from '../domain/clock.js';
import type { OutboxEvent } from '../events/event-types.js';
import type { WebhookSubscription } from '../store/outbox-store.js';
import { eventPayload, slackMessage } from './payload.js';
import { signedHeaders } from './signing.js';

export type PostResult = { ok: true; status: number } | { ok: false; status: number | null; error: string };

const MAX_ERROR_LENGTH = 300;

/** One signed POST of an event to a subscription; any answer but 2xx (redirects included) is a failure. */
export async function postDelivery(
  subscription: WebhookSubscription,
  event: OutboxEvent,
  clock: Clock,
  timeoutMs: number,
  stop?: AbortSignal,
): Promise<PostResult> {
  const body = JSON.stringify(subscription.format === 'slack' ? slackMessage(event) : eventPayload(event));
  const timestamp = Math.floor(clock.now().getTime() / 1000);
  try {
    const res = await fetch(subscription.url, {
      method: 'POST',
      headers: signedHeaders(subscription.secret, event.id, timestamp, body),
      body,
      redirect: 'manual',
      signal: stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: `the receiver answered ${res.status}` };
  } catch (err) {
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    const message = timedOut ? `no answer within ${timeoutMs} ms` : errorText(err);
    return { ok: false, status: null, error: message.slice(0, MAX_ERROR_LENGTH) };
  }
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}

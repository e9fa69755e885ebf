import { IncomingWebhook, type FetchFunction } from '@slack/webhook';
import type { OutboxEvent } from '../../events/event-types.js';
import type { WebhookSubscription } from '../../store/outbox-store.js';
import { guardedPost, type PostOptions, type PostResult } from '../guarded-post.js';
import { chatMessageOf } from './chat-message.js';
import { slackBlocks } from './slack-blocks.js';
import { teamsCard } from './teams-card.js';

/**
 * A chat channel's delivery: Slack through its official SDK (`@slack/webhook`), whose requests go
 * through the same SSRF guard as every delivery (its `fetch` is guardedPost), without its own retries
 * (the dispatcher's schedule retries); Teams as a plain JSON POST. No signature headers: chat
 * services do not check them. The channel URL holds the channel's secret and is never logged.
 */
export async function postChat(subscription: WebhookSubscription, event: OutboxEvent, options: PostOptions): Promise<PostResult> {
  const message = chatMessageOf(event, subscription.chat?.mentions ?? {});
  const url = new URL(subscription.url);
  if (subscription.format === 'teams') return guardedPost(url, { 'content-type': 'application/json' }, JSON.stringify(teamsCard(message)), options);
  let result: PostResult | null = null;
  const fetch: FetchFunction = async (_input, init) => {
    const posted = await guardedPost(url, headersOf(init?.headers), String(init?.body ?? ''), options);
    result = posted;
    if (!posted.ok && posted.status === null) throw new Error(posted.error);
    return new Response(null, { status: posted.status ?? 0 }) as unknown as Awaited<ReturnType<FetchFunction>>;
  };
  try {
    await new IncomingWebhook(url.toString(), { fetch, retryConfig: { retries: 0 } }).send(slackBlocks(message));
  } catch {
    // The SDK's error carries the receiver's answer: the log keeps only guardedPost's own words.
  }
  return result ?? { ok: false, status: null, error: 'connection failed' };
}

function headersOf(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers && typeof headers === 'object') for (const [k, v] of Object.entries(headers as Record<string, unknown>)) out[k.toLowerCase()] = String(v);
  return out;
}

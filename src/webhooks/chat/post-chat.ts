import { IncomingWebhook, type FetchFunction } from '@slack/webhook';
import type { OutboxEvent } from '../../events/event-types.js';
import type { WebhookSubscription } from '../../store/outbox-store.js';
import type { ChatPart } from '../../domain/webhook-delivery.js';
import { guardedPost, type PostOptions, type PostResult } from '../guarded-post.js';
import { mentionsFor } from '../fan-out.js';
import { chatMessageOf, type ChatMessage } from './chat-message.js';
import { fetchHeaders } from './fetch-headers.js';
import { slackBlocks } from './slack-blocks.js';
import { sendSlackDirectMessage } from './slack-dm.js';
import { teamsCard } from './teams-card.js';

export interface ChatPostOptions extends PostOptions {
  /** Slack's Web API base URL, for direct messages (MERGEQ_SLACK_API_URL; https://slack.com/api/ by default). */
  slackApiUrl: string;
}

/**
 * A chat channel's delivery: Slack through its official SDK (`@slack/webhook`), whose requests go
 * through the same SSRF guard as every delivery (its `fetch` is guardedPost), without its own retries
 * (the dispatcher's schedule retries); Teams as a plain JSON POST. No signature headers: chat
 * services do not check them. The channel URL holds the channel's secret and is never logged.
 *
 * A Slack channel with a bot token also sends a pull request's author, when the map names their
 * Slack member, a direct message (slack-dm.ts). `done`: the parts an earlier attempt sent, which are
 * not sent again (a failed direct message does not post to the channel twice).
 */
export async function postChat(subscription: WebhookSubscription, event: OutboxEvent, options: ChatPostOptions, done: readonly ChatPart[] = []): Promise<PostResult> {
  const message = chatMessageOf(event, mentionsFor(subscription, event.repoKey));
  const url = new URL(subscription.url);
  if (subscription.format === 'teams') return guardedPost(url, { 'content-type': 'application/json' }, JSON.stringify(teamsCard(message)), options);
  const sent = [...done];
  let posted: PostResult = { ok: true, status: 200 };
  if (!sent.includes('channel')) {
    posted = await postToSlack(url, message, options);
    if (!posted.ok) return { ...posted, sent };
    sent.push('channel');
  }
  const member = message.author?.chatUser;
  if (!subscription.slackBotToken || !member || sent.includes('direct_message')) return { ...posted, sent };
  const direct = await sendSlackDirectMessage(subscription.slackBotToken, member, message, { ...options, apiUrl: options.slackApiUrl });
  if (!direct.ok) return { ...direct, error: `direct message to the author: ${direct.error}`, sent };
  return { ...direct, sent: [...sent, 'direct_message'] };
}

async function postToSlack(url: URL, message: ChatMessage, options: PostOptions): Promise<PostResult> {
  let result: PostResult | null = null;
  const fetch: FetchFunction = async (_input, init) => {
    const posted = await guardedPost(url, fetchHeaders(init?.headers), String(init?.body ?? ''), options);
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

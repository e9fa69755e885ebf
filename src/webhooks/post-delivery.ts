import type { Clock } from '../domain/clock.js';
import { isChatFormat, type ChatPart } from '../domain/webhook-delivery.js';
import type { OutboxEvent } from '../events/event-types.js';
import type { WebhookSubscription } from '../store/outbox-store.js';
import { postChat, type ChatPostOptions } from './chat/post-chat.js';
import { SLACK_API_URL } from './chat/slack-dm.js';
import { guardedPost, type PostOptions, type PostResult } from './guarded-post.js';
import { eventPayload, slackMessage } from './payload.js';
import { signedHeaders } from './signing.js';

export type { PostOptions, PostResult } from './guarded-post.js';

/**
 * One POST of an event to a subscription, through the SSRF guard (guarded-post.ts): a signed JSON
 * event or Slack line, or a chat channel's message (chat/post-chat.ts); `done`: the parts of a chat
 * delivery earlier attempts sent.
 */
export async function postDelivery(
  subscription: WebhookSubscription,
  event: OutboxEvent,
  clock: Clock,
  options: PostOptions & Partial<ChatPostOptions>,
  done: readonly ChatPart[] = [],
): Promise<PostResult> {
  if (isChatFormat(subscription.format)) return postChat(subscription, event, { ...options, slackApiUrl: options.slackApiUrl ?? SLACK_API_URL }, done);
  const body = JSON.stringify(subscription.format === 'slack' ? slackMessage(event) : eventPayload(event));
  const timestamp = Math.floor(clock.now().getTime() / 1000);
  return guardedPost(new URL(subscription.url), signedHeaders(subscription.secret, event.id, timestamp, body), body, options);
}

/**
 * How an outbound webhook subscription's deliveries are written: `standard` (signed JSON), `slack` (one
 * line of text), or a chat channel (docs/notifications.md): `slack_blocks` (a Slack incoming webhook,
 * Block Kit) or `teams` (a Microsoft Teams Workflows webhook, an Adaptive Card).
 */
export const SUBSCRIPTION_FORMATS = ['standard', 'slack', 'slack_blocks', 'teams'] as const;
export type SubscriptionFormat = (typeof SUBSCRIPTION_FORMATS)[number];

/** The chat channel formats: sent by verdict, with the author mentioned (docs/notifications.md). */
export const CHAT_FORMATS = ['slack_blocks', 'teams'] as const;
export type ChatFormat = (typeof CHAT_FORMATS)[number];

export function isChatFormat(format: SubscriptionFormat): format is ChatFormat {
  return (CHAT_FORMATS as readonly string[]).includes(format);
}

/**
 * The parts of a chat delivery: the channel post, and (a Slack channel with a bot token) the direct
 * message to the pull request's author. An attempt sends those earlier attempts did not.
 */
export type ChatPart = 'channel' | 'direct_message';

/** Where one event's delivery to one subscription stands. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The longest receiver URL a subscription may name. */
export const MAX_URL_LENGTH = 2048;

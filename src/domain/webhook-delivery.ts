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

/** Where one event's delivery to one subscription stands. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The longest receiver URL a subscription may name. */
export const MAX_URL_LENGTH = 2048;

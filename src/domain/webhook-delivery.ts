/** How an outbound webhook subscription's deliveries are written. */
export const SUBSCRIPTION_FORMATS = ['standard', 'slack'] as const;
export type SubscriptionFormat = (typeof SUBSCRIPTION_FORMATS)[number];

/** Where one event's delivery to one subscription stands. */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The longest receiver URL a subscription may name. */
export const MAX_URL_LENGTH = 2048;

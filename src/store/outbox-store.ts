import type { RepoRef } from '../domain/repo.js';
import type { VerdictCode } from '../domain/verdict/verdict.js';
import type { ChatPart, DeliveryStatus, SubscriptionFormat } from '../domain/webhook-delivery.js';
import type { OutboxEvent } from '../events/event-types.js';

/** Where an organization wants its events POSTed. */
export interface WebhookSubscription {
  id: string;
  orgId: string;
  url: string;
  format: SubscriptionFormat;
  /** Event types or patterns (`pull_request.*`, `*`). */
  events: string[];
  /** Only this repository / branch; null: all of the organization's. */
  repo: RepoRef | null;
  repoKey: string | null;
  branch: string | null;
  description: string | null;
  /** `whsec_<base64>`: signs deliveries; shown once when created. */
  secret: string;
  enabled: boolean;
  /** Why it was disabled by mergeq (failing for days); null when enabled or disabled by a user. */
  disabledReason: string | null;
  /** First failed attempt since the last success; null while deliveries succeed. */
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  /** A chat channel's rules (slack_blocks, teams): absent for the other formats. */
  chat?: ChatRules;
  /**
   * A `slack_blocks` channel's Slack bot token (`xoxb-…`), a secret like the URL: with it, a pull
   * request's author whom `chat.mentions` maps is also sent a direct message. Never shown nor logged.
   */
  slackBotToken?: string;
  /** What `.github/mergeq.yml` may call it by (besides its id); unique in the organization. */
  name?: string;
  /**
   * A chat channel's rules for repositories' events, each set by that repository's
   * `.github/mergeq.yml` (docs/notifications.md); each replaces the channel's own rule it names. A
   * list, not a map by repository key: keys with dots do not belong in MongoDB documents.
   */
  fileRules?: ChannelFileRules[];
}

/** What one repository's `.github/mergeq.yml` says of a chat channel, for that repository's events. */
export interface ChannelFileRules {
  /** The repository whose events these rules are for. */
  repoKey: string;
  /** `.github/mergeq.yml@<sha>`: the commit it was applied from. */
  source: string;
  events?: string[];
  verdicts?: VerdictCode[];
  /** Only events of queues of these branches (names or patterns such as `release/*`). */
  branches?: string[];
  /** GitHub login (lower-case) → chat user, over the channel's own map. */
  mentions?: Record<string, string>;
}

/** What a chat channel is sent, and whom it mentions (docs/notifications.md). */
export interface ChatRules {
  /** Pull-request events are sent only for a transition whose verdict is one of these. */
  verdicts: VerdictCode[];
  /** GitHub login (lower-case) → chat user: a Slack member id (U…) or a Teams user (e-mail or AAD id). */
  mentions: Record<string, string>;
}

/** One event to one subscription. */
export interface OutboundDelivery {
  id: string;
  subscriptionId: string;
  orgId: string;
  eventId: string;
  eventType: string;
  orderKey: string;
  /** The event's place in the outbox: deliveries with one (subscription, orderKey) go in this order. */
  seq: number;
  status: DeliveryStatus;
  /** Attempts made in all. */
  attempts: number;
  /** Attempts since it was created or redelivered: the place in the retry schedule. */
  retryIndex: number;
  /** Pending: when it may be tried next (a claim pushes it on, so a crashed attempt is tried again). */
  nextAttemptAt: string;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: string;
  /** A chat delivery's parts sent by earlier attempts (the channel post, the direct message): not sent again. */
  sentParts?: ChatPart[];
}

/**
 * The events an outbox keeps: those of an organization with an enabled webhook, and those without an
 * organization (test-case events: theirs is found by repository owner when they are fanned out).
 * Nobody could receive the others, since events are fanned out to the webhooks enabled at that time
 * and an event committed before a webhook existed need not reach it; so an organization without
 * webhooks pays nothing for them. `listening` is asked once per organization.
 */
export function eventsToKeep(events: readonly OutboxEvent[], listening: (orgId: string) => boolean): OutboxEvent[] {
  const answers = new Map<string, boolean>();
  return events.filter((e) => {
    if (e.orgId === null) return true;
    let answer = answers.get(e.orgId);
    if (answer === undefined) answers.set(e.orgId, (answer = listening(e.orgId)));
    return answer;
  });
}

/** An outbox event with its place in the outbox. */
export interface StoredEvent extends OutboxEvent {
  seq: number;
}

export interface DeliveryFilter {
  subscriptionId?: string;
  status?: DeliveryStatus;
  eventId?: string;
}

/**
 * The outbound webhook role of the store: subscriptions, the event outbox (written by commitQueue,
 * insertQueue, deleteQueue and the flaky-test writes in the same commit), and deliveries.
 */
/** An event and the deliveries it makes. */
export interface FannedOutEvent {
  eventSeq: number;
  deliveries: OutboundDelivery[];
}

export interface OutboxStore {
  insertSubscription(subscription: WebhookSubscription): Promise<void>;
  getSubscription(id: string): Promise<WebhookSubscription | null>;
  listSubscriptions(orgId: string | null): Promise<WebhookSubscription[]>;
  /** Replaces it whole, unconditionally: for seeding and tests; a change of a live one uses `updateSubscription`. */
  putSubscription(subscription: WebhookSubscription): Promise<void>;
  /**
   * Compare-and-set on fields: sets `changes` only while every field of `expected` still holds the
   * value read (see fields-hold.ts); other fields are left as they are, so a delivery attempt's
   * outcome never undoes a person's change of the URL. False when a field changed or it is gone.
   */
  updateSubscription(id: string, expected: Partial<WebhookSubscription>, changes: Partial<WebhookSubscription>): Promise<boolean>;
  /** Deletes it and its deliveries; false when there is none. */
  deleteSubscription(id: string): Promise<boolean>;

  /** Events not yet fanned out to subscriptions, oldest first. */
  undispatchedEvents(limit: number): Promise<StoredEvent[]>;
  /**
   * Creates the deliveries of each event (ignoring those that exist) and marks it fanned out, each
   * event at once with its deliveries (SQLite: all of them in one transaction; the dispatcher passes
   * at most a few hundred deliveries per call).
   */
  dispatchEvents(fannedOut: readonly FannedOutEvent[]): Promise<void>;
  getEvent(id: string): Promise<StoredEvent | null>;

  /**
   * Pending deliveries due at `now` of enabled subscriptions, each the oldest pending one of its
   * (subscription, orderKey): a later event of a PR waits for the earlier ones. Oldest first.
   */
  dueDeliveries(now: string, limit: number): Promise<OutboundDelivery[]>;
  /** Takes a due delivery until `until`; false when another took it or it changed. */
  claimDelivery(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean>;
  /** Replaces it whole, unconditionally: for seeding and tests; a change of a live one uses `updateDelivery`. */
  putDelivery(delivery: OutboundDelivery): Promise<void>;
  /** Compare-and-set on fields, as `updateSubscription`: a delivery attempt and a person's redelivery keep each other's fields. */
  updateDelivery(id: string, expected: Partial<OutboundDelivery>, changes: Partial<OutboundDelivery>): Promise<boolean>;
  getDelivery(id: string): Promise<OutboundDelivery | null>;
  /** Newest first. */
  listDeliveries(orgId: string, filter: DeliveryFilter, page: { offset: number; limit: number }): Promise<{ rows: OutboundDelivery[]; total: number }>;
  /** Drops fanned-out events and finished deliveries older than `before`; how many deliveries. */
  pruneOutbox(before: string): Promise<number>;
}

import { randomUUID } from 'node:crypto';
import type { Org } from '../../domain/org.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import type { Clock } from '../../domain/clock.js';
import type { DeliveryStatus, SubscriptionFormat } from '../../domain/webhook-delivery.js';
import { patternIsKnown } from '../../events/event-filter.js';
import type { OutboundDelivery, OutboxStore, WebhookSubscription } from '../../store/outbox-store.js';
import { LOST, retryOnConflict, type ServerStore } from '../../store/store.js';
import { ReceiverNetworks } from '../../webhooks/receiver-networks.js';
import { receiverUrlProblem } from '../../webhooks/receiver-url.js';
import { newWebhookSecret } from '../../webhooks/signing.js';
import { ServiceError } from '../errors.js';
import { orBusy } from '../busy.js';
import { Pages, type PageJson } from '../pages.js';
import { MAX_PAGE_SIZE, MIN_PAGE_SIZE } from '../flaky/quarantine-service.js';
import { assertOwnsRepo } from '../access/tenancy.js';
import { chatRulesFor, slackBotTokenFor, type ChatRulesInput } from '../notifications/chat-rules.js';
import { checkedName } from '../notifications/channel-name.js';
import { toRecord, type WebhookRecord } from './webhook-record.js';

export type { WebhookRecord } from './webhook-record.js';

/** Subscriptions one organization may have. */
export const MAX_SUBSCRIPTIONS_PER_ORG = 50;

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: string;
}

export interface CreateWebhookInput extends ChatRulesInput {
  url: string;
  events: string[];
  format?: SubscriptionFormat | undefined;
  repo?: RepoRef | null | undefined;
  branch?: string | null | undefined;
  description?: string | null | undefined;
  enabled?: boolean | undefined;
  /** Unique in the organization; null (update) removes it. */
  name?: string | null | undefined;
  /** A `slack_blocks` channel's Slack bot token (xoxb-…) for direct messages to authors; null (update) removes it. */
  slackBotToken?: string | null | undefined;
}

export interface UpdateWebhookInput extends Partial<CreateWebhookInput> {
  id: string;
  /** A new secret, answered once like at creation. */
  rotateSecret?: boolean | undefined;
}

export interface ListDeliveriesInput {
  webhookId?: string | undefined;
  status?: DeliveryStatus | undefined;
  eventId?: string | undefined;
  pageSize: number;
  pageToken: string;
}

/** POST /v1/webhooks/*: an organization's outbound webhook subscriptions and their delivery log. */
export class WebhookService {
  private readonly pages: Pages;

  private readonly networks: ReceiverNetworks;

  /** `allowedNetworks` (CIDRs, MERGEQ_WEBHOOK_ALLOWED_NETWORKS): where receivers may be besides public addresses. */
  constructor(private readonly deps: { store: { outbox: OutboxStore; server: ServerStore }; clock: Clock; newId?: () => string; allowedNetworks?: readonly string[] }) {
    this.pages = new Pages(deps.store.server, { min: MIN_PAGE_SIZE, max: MAX_PAGE_SIZE });
    this.networks = new ReceiverNetworks(deps.allowedNetworks);
  }

  async create(org: Org, input: CreateWebhookInput): Promise<WebhookRecord & { secret: string }> {
    await this.checkUrl(input.url);
    checkEvents(input.events);
    if (input.repo) assertOwnsRepo(org, input.repo);
    const existing = await this.deps.store.outbox.listSubscriptions(org.id);
    if (existing.length >= MAX_SUBSCRIPTIONS_PER_ORG) {
      throw new ServiceError(409, 'too_many_webhooks', 'Too many webhooks', `an organization may have at most ${MAX_SUBSCRIPTIONS_PER_ORG} webhooks; delete one first`);
    }
    const name = checkedName(input.name ?? null, existing);
    const now = this.deps.clock.now().toISOString();
    const chat = chatRulesFor(input.format ?? 'standard', input);
    const slackBotToken = slackBotTokenFor(input.format ?? 'standard', input.slackBotToken);
    const subscription: WebhookSubscription = {
      id: `wh_${(this.deps.newId ?? randomUUID)()}`,
      orgId: org.id,
      url: input.url,
      format: input.format ?? 'standard',
      events: [...new Set(input.events)],
      repo: input.repo ? { host: input.repo.host, owner: input.repo.owner, name: input.repo.name } : null,
      repoKey: input.repo ? repoKey(input.repo) : null,
      branch: input.branch ?? null,
      description: input.description ?? null,
      secret: newWebhookSecret(),
      enabled: input.enabled ?? true,
      disabledReason: null,
      failingSince: null,
      createdAt: now,
      updatedAt: now,
      ...(chat ? { chat } : {}),
      ...(slackBotToken ? { slackBotToken } : {}),
      ...(name !== null ? { name } : {}),
    };
    await this.deps.store.outbox.insertSubscription(subscription);
    return { ...toRecord(subscription), secret: subscription.secret };
  }

  async list(org: Org): Promise<{ webhooks: WebhookRecord[] }> {
    return { webhooks: (await this.deps.store.outbox.listSubscriptions(org.id)).map(toRecord) };
  }

  async update(org: Org, input: UpdateWebhookInput): Promise<WebhookRecord & { secret?: string }> {
    await this.owned(org, input.id);
    if (input.url !== undefined) await this.checkUrl(input.url);
    if (input.events !== undefined) checkEvents(input.events);
    if (input.repo) assertOwnsRepo(org, input.repo);
    const changes = subscriptionChanges(input);
    if (input.name !== undefined) changes.name = checkedName(input.name, await this.deps.store.outbox.listSubscriptions(org.id), input.id) ?? undefined;
    // Only the fields given change, and only while they are as read: a delivery attempt recording a
    // failing streak meanwhile keeps its fields, and this change keeps the person's.
    const next = await orBusy(retryOnConflict(`webhook ${input.id}`, async () => {
      const current = await this.owned(org, input.id);
      // A chat channel's rules follow its format: kept, changed, or dropped with a move to another format.
      const format = changes.format ?? current.format;
      const chat = chatRulesFor(format, input, current.chat);
      const slackBotToken = slackBotTokenFor(format, input.slackBotToken, current.slackBotToken);
      const withChat = {
        ...changes,
        ...(chat || current.chat ? { chat } : {}),
        ...(slackBotToken !== current.slackBotToken ? { slackBotToken } : {}),
      };
      const set = { ...withChat, updatedAt: this.deps.clock.now().toISOString() };
      const expected = Object.fromEntries(Object.keys(withChat).map((k) => [k, current[k as keyof WebhookSubscription]]));
      return (await this.deps.store.outbox.updateSubscription(current.id, expected, set)) ? { ...current, ...set } : LOST;
    }));
    return input.rotateSecret ? { ...toRecord(next), secret: next.secret } : toRecord(next);
  }

  async delete(org: Org, id: string): Promise<{ deleted: boolean }> {
    const current = await this.deps.store.outbox.getSubscription(id);
    if (!current || current.orgId !== org.id) return { deleted: false };
    return { deleted: await this.deps.store.outbox.deleteSubscription(id) };
  }

  async deliveries(org: Org, input: ListDeliveriesInput): Promise<{ deliveries: DeliveryRecord[]; page: PageJson }> {
    if (input.webhookId !== undefined) await this.owned(org, input.webhookId, 'webhookId');
    const filter = {
      ...(input.webhookId !== undefined ? { subscriptionId: input.webhookId } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.eventId !== undefined ? { eventId: input.eventId } : {}),
    };
    // A token is bound to the organization and the filter, like the quarantine listing's to its repository.
    const query = { repoKey: `webhook-deliveries\u0000${org.id}\u0000${JSON.stringify(filter)}`, pageSize: input.pageSize };
    const pageIndex = await this.pages.pageIndex(query, input);
    const { rows, total } = await this.deps.store.outbox.listDeliveries(org.id, filter, this.pages.rowsOf(query, pageIndex));
    return { deliveries: rows.map(toDeliveryRecord), page: await this.pages.page(query, pageIndex, total) };
  }

  /** Sends a delivery again from the start of the retry schedule (its attempts so far are kept). */
  async redeliver(org: Org, deliveryId: string): Promise<DeliveryRecord> {
    const delivery = await this.deps.store.outbox.getDelivery(deliveryId);
    if (!delivery || delivery.orgId !== org.id) {
      throw new ServiceError(404, 'delivery_not_found', 'Delivery not found', `no delivery ${deliveryId} in this organization`, [
        { path: 'deliveryId', message: 'no such delivery' },
      ]);
    }
    // Only the fields of the schedule: an attempt recording its outcome meanwhile keeps it.
    // Sent again whole: a chat delivery's parts sent before are sent again too.
    const schedule = { status: 'pending' as const, retryIndex: 0, nextAttemptAt: this.deps.clock.now().toISOString(), sentParts: [] };
    await this.deps.store.outbox.updateDelivery(delivery.id, {}, schedule);
    return toDeliveryRecord((await this.deps.store.outbox.getDelivery(delivery.id)) ?? { ...delivery, ...schedule });
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await receiverUrlProblem(url, this.networks);
    if (problem) throw new ServiceError(400, 'invalid_request', 'Invalid request', `url ${problem}`, [{ path: 'url', message: problem }]);
  }

  private async owned(org: Org, id: string, field = 'id'): Promise<WebhookSubscription> {
    const s = await this.deps.store.outbox.getSubscription(id);
    // Another organization's webhook is answered as missing: a token learns nothing of it.
    if (!s || s.orgId !== org.id) {
      throw new ServiceError(404, 'webhook_not_found', 'Webhook not found', `no webhook ${id} in this organization`, [{ path: field, message: 'no such webhook' }]);
    }
    return s;
  }
}

/** The fields an update sets (besides updatedAt). */
function subscriptionChanges(input: UpdateWebhookInput): Partial<WebhookSubscription> {
  const next: Partial<WebhookSubscription> = {};
  if (input.url !== undefined) next.url = input.url;
  if (input.events !== undefined) next.events = [...new Set(input.events)];
  if (input.format !== undefined) next.format = input.format;
  if (input.repo !== undefined) {
    next.repo = input.repo ? { host: input.repo.host, owner: input.repo.owner, name: input.repo.name } : null;
    next.repoKey = input.repo ? repoKey(input.repo) : null;
  }
  if (input.branch !== undefined) next.branch = input.branch;
  if (input.description !== undefined) next.description = input.description;
  if (input.enabled !== undefined) {
    next.enabled = input.enabled;
    // Enabled again (by a user): the failing streak starts over.
    if (input.enabled) Object.assign(next, { disabledReason: null, failingSince: null });
  }
  if (input.rotateSecret) next.secret = newWebhookSecret();
  return next;
}

function checkEvents(events: string[]): void {
  events.forEach((pattern, i) => {
    if (!patternIsKnown(pattern)) {
      throw new ServiceError(400, 'invalid_request', 'Invalid request', `events[${i}] "${pattern}" names no event type`, [
        { path: `events.${i}`, message: 'names no event type (see docs/webhooks.md for the list; wildcards: "pull_request.*", "*")' },
      ]);
    }
  });
}

function toDeliveryRecord(d: OutboundDelivery): DeliveryRecord {
  return {
    id: d.id,
    webhookId: d.subscriptionId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt : null,
    lastAttemptAt: d.lastAttemptAt,
    responseStatus: d.responseStatus,
    lastError: d.lastError,
    createdAt: d.createdAt,
  };
}

import type { Logger } from 'pino';
import { derivedId } from '../domain/ids.js';
import type { Clock } from '../domain/clock.js';
import type { FannedOutEvent, OutboxStore, StoredEvent, WebhookSubscription } from '../store/outbox-store.js';
import type { OrgStore } from '../store/store.js';
import { subscriptionWants } from './fan-out.js';
import { postDelivery, type PostResult } from './post-delivery.js';
import { DISABLE_AFTER_MS, RETRY_SCHEDULE_MS } from './retry-schedule.js';
import { ReceiverNetworks } from './receiver-networks.js';
import { recordAttempt } from './record-attempt.js';
import { ownerKeyOfRepo } from './payload.js';

export interface DispatcherOptions {
  store: { outbox: OutboxStore; orgs: OrgStore };
  clock: Clock;
  logger: Logger;
  /** Waits after each failed attempt; RETRY_SCHEDULE_MS unless a test shortens it. */
  retryScheduleMs?: readonly number[];
  disableAfterMs?: number;
  /** A receiver must answer within this (10 s). */
  timeoutMs?: number;
  /** Deliveries in flight at once (16). */
  concurrency?: number;
  /** How often the outbox is looked at when there was nothing to do (250 ms). */
  pollMs?: number;
  /** Networks (CIDRs) receivers may be in besides public addresses (receiver-networks.ts); none unless given. */
  allowedNetworks?: readonly string[];
  /** Slack's Web API base URL for chat channels' direct messages (MERGEQ_SLACK_API_URL); https://slack.com/api/ unless given. */
  slackApiUrl?: string;
}

const EVENTS_PER_PASS = 500;
/**
 * Deliveries written in one store call at most. A backlog (after a restart, say) fans out 500 events
 * per pass, 5,000 deliveries to 10 webhooks: in one SQLite write that holds the event loop for tens of
 * milliseconds (200 deliveries take about 3 ms), which API calls would wait out. Between two writes
 * the pass yields to them.
 */
const DELIVERIES_PER_WRITE = 200;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const KEEP_DELIVERIES_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Sends the outbox, outside the reconcile path: fans new events out to the subscriptions that want
 * them, then POSTs due deliveries with bounded concurrency. Only the oldest pending delivery of a
 * (subscription, PR) is ever due, so a PR's events arrive in order; a failed attempt is retried on
 * the schedule, and a subscription that fails for `disableAfterMs` is disabled. Every step is
 * recorded in the store first, so a crash at any point sends at least once, never loses an event.
 */
export class WebhookDispatcher {
  private readonly schedule: readonly number[];
  private readonly disableAfterMs: number;
  private readonly timeoutMs: number;
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly networks: ReceiverNetworks;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  /** Aborts the requests in flight at stop: their claims lapse and the next start sends them again. */
  private stopping = new AbortController();
  private lastPrune = 0;

  constructor(private readonly options: DispatcherOptions) {
    this.schedule = options.retryScheduleMs ?? RETRY_SCHEDULE_MS;
    this.disableAfterMs = options.disableAfterMs ?? DISABLE_AFTER_MS;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.concurrency = options.concurrency ?? 16;
    this.pollMs = options.pollMs ?? 250;
    this.networks = new ReceiverNetworks(options.allowedNetworks);
  }

  start(): void {
    this.stopped = false;
    this.stopping = new AbortController();
    this.schedulePass(0);
  }

  /** Stops at once: requests in flight are aborted and not recorded, so they are sent again later. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One pass: fan out, then send what is due. Returns how many events and attempts it handled. */
  async runOnce(): Promise<number> {
    const fanned = await this.fanOut();
    const sent = await this.sendDue();
    await this.pruneNow();
    return fanned + sent;
  }

  private schedulePass(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .catch((err: unknown) => {
          this.options.logger.error({ err }, 'webhook dispatch failed; trying again');
          return 0;
        })
        .then((handled) => this.schedulePass(handled > 0 ? 0 : this.pollMs));
    }, delayMs);
    this.timer.unref?.();
  }

  private async fanOut(): Promise<number> {
    const { store, clock } = this.options;
    const events = await store.outbox.undispatchedEvents(EVENTS_PER_PASS);
    const subscriptionsOf = new Map<string, Awaited<ReturnType<typeof store.outbox.listSubscriptions>>>();
    let fannedOut: FannedOutEvent[] = [];
    let deliveriesToWrite = 0;
    for (const event of events) {
      if (deliveriesToWrite >= DELIVERIES_PER_WRITE) {
        await store.outbox.dispatchEvents(fannedOut);
        fannedOut = [];
        deliveriesToWrite = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const orgId = event.orgId ?? (await store.orgs.findOrgByOwner(ownerKeyOfRepo(event.repoKey)))?.id ?? null;
      let subscriptions = orgId === null ? [] : subscriptionsOf.get(orgId);
      if (!subscriptions && orgId !== null) {
        subscriptions = await store.outbox.listSubscriptions(orgId);
        subscriptionsOf.set(orgId, subscriptions);
      }
      const now = clock.now().toISOString();
      const deliveries = (subscriptions ?? []).filter((s) => subscriptionWants(s, event)).map((s) => newDelivery(s.id, s.orgId, event, now));
      fannedOut.push({ eventSeq: event.seq, deliveries });
      deliveriesToWrite += deliveries.length;
    }
    if (fannedOut.length > 0) await store.outbox.dispatchEvents(fannedOut);
    return events.length;
  }

  private async sendDue(): Promise<number> {
    const { store, clock } = this.options;
    const due = await store.outbox.dueDeliveries(clock.now().toISOString(), this.concurrency * 4);
    let next = 0;
    let sent = 0;
    // One read of each subscription and event per pass: an event goes to many subscriptions.
    const subscriptions = new Map<string, Promise<WebhookSubscription | null>>();
    const events = new Map<string, Promise<StoredEvent | null>>();
    const cached = <T>(cache: Map<string, Promise<T>>, id: string, read: (id: string) => Promise<T>) => {
      let value = cache.get(id);
      if (!value) cache.set(id, (value = read(id)));
      return value;
    };
    const worker = async () => {
      while (next < due.length) {
        const delivery = due[next++]!;
        // The claim outlasts the request: if this process dies now, the delivery is due again later.
        const until = new Date(clock.now().getTime() + this.timeoutMs * 2).toISOString();
        if (!(await store.outbox.claimDelivery(delivery.id, delivery.nextAttemptAt, until))) continue;
        const [subscription, event] = await Promise.all([
          cached(subscriptions, delivery.subscriptionId, (id) => store.outbox.getSubscription(id)),
          cached(events, delivery.eventId, (id) => store.outbox.getEvent(id)),
        ]);
        if (!subscription || !event) continue;
        const result: PostResult = await postDelivery(subscription, event, clock, {
          networks: this.networks,
          timeoutMs: this.timeoutMs,
          stop: this.stopping.signal,
          ...(this.options.slackApiUrl ? { slackApiUrl: this.options.slackApiUrl } : {}),
        }, delivery.sentParts);
        if (this.stopping.signal.aborted) return;
        sent++;
        await recordAttempt(store.outbox, { ...delivery, nextAttemptAt: until }, subscription, result, {
          at: clock.now(),
          schedule: this.schedule,
          disableAfterMs: this.disableAfterMs,
        });
        if (!result.ok) this.options.logger.info({ delivery: delivery.id, event: event.type, status: result.status, error: result.error }, 'webhook delivery failed');
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, due.length) }, worker));
    return sent;
  }

  private async pruneNow(): Promise<void> {
    const now = this.options.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.options.store.outbox.pruneOutbox(new Date(now - KEEP_DELIVERIES_MS).toISOString());
  }
}

function newDelivery(subscriptionId: string, orgId: string, event: StoredEvent, now: string) {
  return {
    id: `dlv_${derivedId('delivery', subscriptionId, event.id)}`,
    subscriptionId,
    orgId,
    eventId: event.id,
    eventType: event.type,
    orderKey: event.orderKey,
    seq: event.seq,
    status: 'pending' as const,
    attempts: 0,
    retryIndex: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatus: null,
    lastError: null,
    createdAt: now,
  };
}

import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock.js';
import type { InboxDelivery, InboxStore } from '../../store/inbox-store.js';

/** A verified GitHub delivery: `x-github-delivery`, `x-github-event`, the parsed payload. */
export interface InboundDelivery {
  id: string;
  name: string;
  payload: unknown;
}

/** Why a failed attempt is final and the delivery ignored (e.g. an unknown installation), or null to retry it. */
export type IgnoredBecause = (err: unknown, delivery: InboundDelivery) => string | null;

/** Waits after each failed attempt (about 15 hours in all), then the delivery is given up. */
export const INBOX_RETRY_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000];
/** An attempt's claim: if its process dies, the delivery is due again after this. */
const CLAIM_MS = 2 * 60_000;
/** Handled deliveries are remembered this long, so GitHub's redeliveries (up to 3 days) are recognized. */
const KEEP_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;

export interface WebhookInboxDeps {
  store: { inbox: InboxStore };
  clock: Clock;
  logger: Logger;
  /** Runs the App's handlers on a delivery (probot's `receive`); a throw is a failed attempt. */
  handle: (delivery: InboundDelivery) => Promise<void>;
  ignoredBecause?: IgnoredBecause;
  retryScheduleMs?: readonly number[];
  /** Deliveries handled at once (8). */
  concurrency?: number;
  /** How often the inbox is looked at for retries that became due (1 s). */
  pollMs?: number;
}

/**
 * GitHub's webhooks are stored here before GitHub is answered, then handled from the store: GitHub
 * gets its answer in milliseconds (it gives up after 10 s), a failed attempt is retried with backoff,
 * a crash loses nothing (what is stored is handled after the restart), and a redelivery of a stored
 * delivery is a no-op. Several replicas may share the inbox: an attempt claims its delivery first.
 */
export class WebhookInbox {
  private readonly schedule: readonly number[];
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private passing: Promise<void> | null = null;
  private passAgain = false;
  private stopped = true;
  private lastPrune = 0;

  constructor(private readonly deps: WebhookInboxDeps) {
    this.schedule = deps.retryScheduleMs ?? INBOX_RETRY_MS;
    this.concurrency = deps.concurrency ?? 8;
    this.pollMs = deps.pollMs ?? 1000;
  }

  /** Stores a verified delivery; false for a redelivery of one already stored, which changes nothing. */
  async accept(delivery: InboundDelivery): Promise<boolean> {
    const now = this.deps.clock.now().toISOString();
    const stored = await this.deps.store.inbox.acceptInbound({
      id: delivery.id,
      name: delivery.name,
      payload: JSON.stringify(delivery.payload),
      receivedAt: now,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
    });
    if (stored) this.wake();
    return stored;
  }

  /** Starts handling: at once what the store holds (deliveries a stopped or crashed process left), then as they come. */
  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Stops taking deliveries and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.passing;
    await Promise.all(this.inFlight.values());
  }

  /** One look at the inbox, waiting for the attempts it started; returns how many it started. */
  async runOnce(): Promise<number> {
    const started = await this.startDue();
    await Promise.all(this.inFlight.values());
    return started;
  }

  private wake(): void {
    if (this.stopped) return;
    if (this.passing) {
      this.passAgain = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.passing = this.startDue()
      .catch((err: unknown) => void this.deps.logger.error({ err }, 'reading the webhook inbox failed; trying again'))
      .then(() => {
        this.passing = null;
        if (this.passAgain) {
          this.passAgain = false;
          this.wake();
        } else if (!this.stopped) {
          this.timer = setTimeout(() => this.wake(), this.pollMs);
          this.timer.unref();
        }
      });
  }

  /** Claims the due deliveries there is room for and starts them, without waiting for them. */
  private async startDue(): Promise<number> {
    const { store, clock } = this.deps;
    await this.pruneNow();
    const room = this.concurrency - this.inFlight.size;
    if (room <= 0) return 0;
    const due = await store.inbox.dueInbound(clock.now().toISOString(), room);
    let started = 0;
    for (const delivery of due) {
      if (this.inFlight.has(delivery.id)) continue;
      const until = new Date(clock.now().getTime() + CLAIM_MS).toISOString();
      if (!(await store.inbox.claimInbound(delivery.id, delivery.nextAttemptAt, until))) continue;
      const attempt = this.attempt({ ...delivery, nextAttemptAt: until }).finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
      this.inFlight.set(delivery.id, attempt);
      started++;
    }
    return started;
  }

  private async attempt(stored: InboxDelivery): Promise<void> {
    const { store, clock, logger } = this.deps;
    const delivery: InboundDelivery = { id: stored.id, name: stored.name, payload: JSON.parse(stored.payload) as unknown };
    const attempts = stored.attempts + 1;
    const log = { delivery: stored.id, event: stored.name, attempt: attempts };
    try {
      await this.deps.handle(delivery);
      await store.inbox.putInbound({ ...stored, payload: '', status: 'done', attempts, lastError: null });
      return;
    } catch (err) {
      const error = errorSummary(err);
      const ignored = this.deps.ignoredBecause?.(err, delivery) ?? null;
      if (ignored !== null) {
        logger.info({ ...log, reason: ignored }, `webhook delivery ignored: ${ignored}`);
        await store.inbox.putInbound({ ...stored, payload: '', status: 'done', attempts, lastError: ignored });
        return;
      }
      const wait = this.schedule[stored.attempts];
      if (wait === undefined) {
        logger.error({ ...log, error }, 'webhook delivery given up after its retries; redeliver it from GitHub to try again');
        await store.inbox.putInbound({ ...stored, status: 'failed', attempts, lastError: error });
        return;
      }
      logger.warn({ ...log, error, retryInMs: wait }, 'webhook delivery failed; retrying');
      const nextAttemptAt = new Date(clock.now().getTime() + wait).toISOString();
      await store.inbox.putInbound({ ...stored, status: 'pending', attempts, nextAttemptAt, lastError: error });
    }
  }

  private async pruneNow(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.deps.store.inbox.pruneInbound(new Date(now - KEEP_MS).toISOString());
  }
}

/** A failure's message for the log: the first of an aggregate (probot runs several handlers), printable, short. */
function errorSummary(err: unknown): string {
  const first = err instanceof AggregateError && err.errors.length > 0 ? (err.errors[0] as unknown) : err;
  const message = first instanceof Error ? `${first.name}: ${first.message}` : String(first);
  return message.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300);
}

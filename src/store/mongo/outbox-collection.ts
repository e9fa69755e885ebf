import type { Collection, Db, Document, Filter } from 'mongodb';
import type { OutboxEvent } from '../../events/event-types.js';
import { eventsToKeep, type DeliveryFilter, type FannedOutEvent, type OutboundDelivery, type OutboxStore, type StoredEvent, type WebhookSubscription } from '../outbox-store.js';

/**
 * Outbound webhooks in MongoDB. Without multi-document transactions, a queue commit carries its
 * events inside the queue document (`pendingEvents`, appended by the same compare-and-set); the
 * dispatcher's `undispatchedEvents` first moves them to the outbox collection (upsert by event id,
 * so repeating a move is harmless) and then pulls exactly those from the document.
 */
export const PENDING_EVENTS = 'pendingEvents';
/** Queue reads leave the carried events out. */
export const QUEUE_PROJECTION = { _id: 0, [PENDING_EVENTS]: 0 } as const;

/**
 * `requiresQueueGone`: written before the queue's compare-and-set delete (a deleted document cannot
 * carry it); sent only once that queue is gone, and dropped when the queue is still there a while
 * later (that delete lost its compare-and-set).
 */
type EventDoc = OutboxEvent & { seq: number; dispatched: boolean; requiresQueueGone?: string; writtenAt?: string };
const DELETE_SETTLES_MS = 60_000;
interface Counter {
  name: string;
  value: number;
}

/** The compare-and-set update that replaces a stored queue by `stored`, with `events` appended to those it carries. */
export function commitPipeline(stored: object, events: readonly OutboxEvent[]): Document[] {
  return [
    {
      $replaceWith: {
        $mergeObjects: [
          { $literal: stored },
          { _id: '$_id', [PENDING_EVENTS]: { $concatArrays: [{ $ifNull: [`$${PENDING_EVENTS}`, []] }, { $literal: events }] } },
        ],
      },
    },
  ];
}

export class MongoOutbox implements OutboxStore {
  private readonly events: Collection<EventDoc>;
  private readonly subscriptions: Collection<WebhookSubscription>;
  private readonly deliveries: Collection<OutboundDelivery>;
  private readonly counters: Collection<Counter>;

  constructor(
    db: Db,
    private readonly queues: Collection<Document>,
  ) {
    this.events = db.collection('outbox_events');
    this.subscriptions = db.collection('webhook_subscriptions');
    this.deliveries = db.collection('outbound_deliveries');
    this.counters = db.collection('counters');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.events.createIndexes([{ key: { id: 1 }, unique: true }, { key: { dispatched: 1, seq: 1 } }]),
      this.subscriptions.createIndexes([{ key: { id: 1 }, unique: true }, { key: { orgId: 1 } }]),
      this.deliveries.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { subscriptionId: 1, eventId: 1 }, unique: true },
        { key: { subscriptionId: 1, orderKey: 1, status: 1, seq: 1 } },
        { key: { status: 1, nextAttemptAt: 1 } },
        { key: { orgId: 1, seq: -1 } },
      ]),
      this.counters.createIndexes([{ key: { name: 1 }, unique: true }]),
    ]);
  }

  /**
   * Stores events directly (test-case changes, a deleted queue's, those a queue document carried),
   * when their organization has an enabled webhook now (`eventsToKeep`). Repeating an id is harmless.
   */
  async insertEvents(events: readonly OutboxEvent[] | undefined, options: { requiresQueueGone?: string } = {}): Promise<void> {
    if (!events?.length) return;
    const listening = new Set<string>();
    for (const orgId of new Set(events.map((e) => e.orgId))) {
      if (orgId !== null && (await this.subscriptions.findOne({ orgId, enabled: true }, { projection: { _id: 1 } }))) listening.add(orgId);
    }
    for (const e of eventsToKeep(events, (orgId) => listening.has(orgId))) {
      if (await this.events.findOne({ id: e.id }, { projection: { _id: 1 } })) continue;
      const seq = await this.nextSeq();
      const doc: EventDoc = { ...e, seq, dispatched: false, ...(options.requiresQueueGone ? { requiresQueueGone: options.requiresQueueGone, writtenAt: new Date().toISOString() } : {}) };
      await this.events.updateOne({ id: e.id }, { $setOnInsert: doc }, { upsert: true }).catch((err: unknown) => {
        if (!(err instanceof Error && 'code' in err && err.code === 11000)) throw err;
      });
    }
  }

  /** Moves the events carried by queue documents (those of `queueId`, or of every queue) to the outbox. */
  async movePending(queueId?: string): Promise<void> {
    const filter: Filter<Document> = { [`${PENDING_EVENTS}.0`]: { $exists: true }, ...(queueId ? { id: queueId } : {}) };
    const carriers = (await this.queues.find(filter, { projection: { _id: 0, id: 1, [PENDING_EVENTS]: 1 } }).toArray()) as unknown as {
      id: string;
      pendingEvents: OutboxEvent[];
    }[];
    for (const carrier of carriers) {
      await this.insertEvents(carrier.pendingEvents);
      const ids = carrier.pendingEvents.map((e) => e.id);
      await this.queues.updateOne({ id: carrier.id }, { $pull: { [PENDING_EVENTS]: { id: { $in: ids } } } } as Document);
    }
  }

  async insertSubscription(s: WebhookSubscription): Promise<void> {
    await this.subscriptions.insertOne({ ...s });
  }

  async getSubscription(id: string): Promise<WebhookSubscription | null> {
    return (await this.subscriptions.findOne({ id }, { projection: { _id: 0 } })) as WebhookSubscription | null;
  }

  async listSubscriptions(orgId: string | null): Promise<WebhookSubscription[]> {
    const filter = orgId === null ? {} : { orgId };
    return (await this.subscriptions.find(filter, { projection: { _id: 0 }, sort: { createdAt: 1, id: 1 } }).toArray()) as WebhookSubscription[];
  }

  async putSubscription(s: WebhookSubscription): Promise<void> {
    await this.subscriptions.replaceOne({ id: s.id }, { ...s });
  }

  async deleteSubscription(id: string): Promise<boolean> {
    const { deletedCount } = await this.subscriptions.deleteOne({ id });
    await this.deliveries.deleteMany({ subscriptionId: id });
    return deletedCount === 1;
  }

  async undispatchedEvents(limit: number): Promise<StoredEvent[]> {
    await this.movePending();
    const docs = (await this.events.find({ dispatched: false }, { projection: { _id: 0 }, sort: { seq: 1 }, limit }).toArray()) as EventDoc[];
    const ready: StoredEvent[] = [];
    for (const { dispatched: _, requiresQueueGone, writtenAt, ...e } of docs) {
      if (requiresQueueGone && (await this.queues.findOne({ id: requiresQueueGone }, { projection: { _id: 1 } }))) {
        if (Date.now() - Date.parse(writtenAt ?? e.at) > DELETE_SETTLES_MS) await this.events.deleteOne({ id: e.id, dispatched: false });
        continue;
      }
      ready.push(e);
    }
    return ready;
  }

  async dispatchEvents(fannedOut: readonly FannedOutEvent[]): Promise<void> {
    for (const { eventSeq, deliveries } of fannedOut) {
      for (const d of deliveries) {
        await this.deliveries.updateOne({ subscriptionId: d.subscriptionId, eventId: d.eventId }, { $setOnInsert: { ...d } }, { upsert: true }).catch((err: unknown) => {
          if (!(err instanceof Error && 'code' in err && err.code === 11000)) throw err;
        });
      }
      await this.events.updateOne({ seq: eventSeq }, { $set: { dispatched: true } });
    }
  }

  async getEvent(id: string): Promise<StoredEvent | null> {
    const doc = (await this.events.findOne({ id }, { projection: { _id: 0, dispatched: 0, requiresQueueGone: 0, writtenAt: 0 } })) as StoredEvent | null;
    return doc;
  }

  async dueDeliveries(now: string, limit: number): Promise<OutboundDelivery[]> {
    const enabled = new Set((await this.subscriptions.find({ enabled: true }, { projection: { id: 1 } }).toArray()).map((s) => s.id));
    const candidates = (await this.deliveries
      .find({ status: 'pending', nextAttemptAt: { $lte: now } }, { projection: { _id: 0 }, sort: { seq: 1 }, limit: limit * 4 })
      .toArray()) as OutboundDelivery[];
    const due: OutboundDelivery[] = [];
    for (const d of candidates) {
      if (due.length >= limit || !enabled.has(d.subscriptionId)) continue;
      const earlier = await this.deliveries.findOne({ subscriptionId: d.subscriptionId, orderKey: d.orderKey, status: 'pending', seq: { $lt: d.seq } }, { projection: { _id: 1 } });
      if (!earlier) due.push(d);
    }
    return due;
  }

  async claimDelivery(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    const { modifiedCount } = await this.deliveries.updateOne({ id, status: 'pending', nextAttemptAt: expectedNextAttemptAt }, { $set: { nextAttemptAt: until } });
    return modifiedCount === 1;
  }

  async putDelivery(d: OutboundDelivery): Promise<void> {
    await this.deliveries.replaceOne({ id: d.id }, { ...d });
  }

  async getDelivery(id: string): Promise<OutboundDelivery | null> {
    return (await this.deliveries.findOne({ id }, { projection: { _id: 0 } })) as OutboundDelivery | null;
  }

  async listDeliveries(orgId: string, filter: DeliveryFilter, page: { offset: number; limit: number }): Promise<{ rows: OutboundDelivery[]; total: number }> {
    const query: Filter<OutboundDelivery> = { orgId };
    if (filter.subscriptionId !== undefined) query.subscriptionId = filter.subscriptionId;
    if (filter.status !== undefined) query.status = filter.status;
    if (filter.eventId !== undefined) query.eventId = filter.eventId;
    const [rows, total] = await Promise.all([
      this.deliveries.find(query, { projection: { _id: 0 }, sort: { seq: -1, subscriptionId: 1 }, skip: page.offset, limit: page.limit }).toArray(),
      this.deliveries.countDocuments(query),
    ]);
    return { rows: rows as OutboundDelivery[], total };
  }

  async pruneOutbox(before: string): Promise<number> {
    const { deletedCount } = await this.deliveries.deleteMany({ status: { $ne: 'pending' }, createdAt: { $lt: before } });
    const referenced = await this.deliveries.distinct('eventId');
    await this.events.deleteMany({ dispatched: true, at: { $lt: before }, id: { $nin: referenced } });
    return deletedCount;
  }

  private async nextSeq(): Promise<number> {
    const counter = await this.counters.findOneAndUpdate({ name: 'outbox' }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' });
    return counter?.value ?? 1;
  }
}

import type { AnyBulkWriteOperation, Collection, Db, Document, Filter } from 'mongodb';
import type { OutboxEvent } from '../../events/event-types.js';
import { eventsToKeep, type DeliveryFilter, type FannedOutEvent, type OutboundDelivery, type OutboxStore, type StoredEvent, type WebhookSubscription } from '../outbox-store.js';
import { fieldsFilter, retryOnDuplicate } from './collection-ops.js';
import { dueDeliveries } from './due-deliveries.js';
import { pruneOutbox } from './outbox-prune.js';
import type { MongoCounters } from './counters.js';

/**
 * Outbound webhooks in MongoDB, without multi-document transactions. A queue commit decides which of
 * its events to keep (`eventsToKeep`) and stages them (`staged_events`, under the commit's id) before
 * its compare-and-set, which records that id in the queue document (its last COMMITS_KEPT ids). The
 * winner then confirms them: they are written to the outbox (upsert by event id, so a repeat writes
 * nothing twice) and their staged copies deleted; the loser deletes its staged copies. Another
 * commit's staged events never stand in for this one's: two commits racing for one version may make
 * events with the same id. Events a stopped committer left staged are settled a minute later by
 * looking for their commit in the queue document.
 *
 * Events are numbered when they are staged, before the compare-and-set: the next commit of that queue
 * can only read the queue after this one landed, so it numbers its events after these, whichever
 * replica makes it. Until a staged event is confirmed or discarded, no event numbered after it is
 * handed out (`undispatchedEvents`), so one PR's events are fanned out in commit order even when a
 * committer stops between its compare-and-set and its confirmation (they then wait for the settling).
 */
/** Documents written by earlier versions carried their commits' events here. */
export const PENDING_EVENTS = 'pendingEvents';
/** How many commit ids a queue document remembers, for settling the events of a stopped committer. */
export const COMMITS_KEPT = 256;

/**
 * `requiresQueueGone`: written before the queue's compare-and-set delete (a deleted document cannot
 * confirm anything); sent only once that queue is gone, and dropped when the queue is still there a
 * while later (that delete lost its compare-and-set).
 */
interface EventMarks {
  requiresQueueGone?: string;
  writtenAt?: string;
}
type EventDoc = OutboxEvent & EventMarks & { seq: number; dispatched: boolean };
/** An event of a commit whose compare-and-set is not known to have landed. */
interface StagedEvent {
  commitId: string;
  queueId: string;
  writtenAt: string;
  event: OutboxEvent;
  /** Its place in the outbox, reserved at staging (absent on events staged by the previous layout). */
  seq?: number;
}
interface NumberedEvent {
  event: OutboxEvent;
  seq?: number | undefined;
}
const SETTLES_MS = 60_000;
/** Documents read per round trip by housekeeping, so no reply grows with history. */
const BATCH = 1000;

export class MongoOutbox implements OutboxStore {
  private readonly events: Collection<EventDoc>;
  private readonly subscriptions: Collection<WebhookSubscription>;
  private readonly deliveries: Collection<OutboundDelivery>;
  private readonly staged: Collection<StagedEvent>;

  constructor(
    db: Db,
    private readonly queues: Collection<Document>,
    private readonly counters: MongoCounters,
  ) {
    this.events = db.collection('outbox_events');
    this.subscriptions = db.collection('webhook_subscriptions');
    this.deliveries = db.collection('outbound_deliveries');
    this.staged = db.collection('staged_events');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.events.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { seq: 1 }, unique: true },
        { key: { dispatched: 1, seq: 1 } },
      ]),
      this.staged.createIndexes([{ key: { commitId: 1 } }, { key: { writtenAt: 1 } }, { key: { seq: 1 } }]),
      this.subscriptions.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { orgId: 1, enabled: 1 } },
        { key: { orgId: 1, createdAt: 1, id: 1 } },
        { key: { createdAt: 1, id: 1 } },
        { key: { enabled: 1 } },
      ]),
      this.deliveries.createIndexes([
        { key: { id: 1 }, unique: true },
        { key: { subscriptionId: 1, eventId: 1 }, unique: true },
        { key: { subscriptionId: 1, orderKey: 1, status: 1, seq: 1 } },
        { key: { status: 1, seq: 1 } },
        { key: { status: 1, createdAt: 1 } },
        { key: { eventId: 1 } },
        { key: { orgId: 1, seq: -1, subscriptionId: 1 } },
      ]),
    ]);
  }

  /** Of these events, those an enabled webhook could receive now (one indexed lookup per organization). */
  async keep(events: readonly OutboxEvent[] | undefined): Promise<OutboxEvent[]> {
    if (!events?.length) return [];
    const listening = new Set<string>();
    for (const orgId of new Set(events.map((e) => e.orgId))) {
      if (orgId !== null && (await this.subscriptions.findOne({ orgId, enabled: true }, { projection: { _id: 1 } }))) listening.add(orgId);
    }
    return eventsToKeep(events, (orgId) => listening.has(orgId));
  }

  /** Stores events directly (test-case changes, a deleted queue's), when an enabled webhook could receive them. */
  async insertEvents(events: readonly OutboxEvent[] | undefined, options: { requiresQueueGone?: string } = {}): Promise<void> {
    const marks = options.requiresQueueGone ? { requiresQueueGone: options.requiresQueueGone, writtenAt: new Date().toISOString() } : {};
    await this.write((await this.keep(events)).map((event) => ({ event })), marks);
  }

  /** Numbers the kept events of a queue commit and stores them, not to be sent before the commit is confirmed; answers them numbered. */
  async stage(events: readonly OutboxEvent[], queueId: string, commitId: string): Promise<NumberedEvent[]> {
    const writtenAt = new Date().toISOString();
    const first = await this.counters.reserve('outbox', events.length);
    const staged = events.map((event, i) => ({ commitId, queueId, writtenAt, event, seq: first + i }));
    await this.staged.insertMany(staged.map((s) => ({ ...s })), { ordered: false });
    return staged.map(({ event, seq }) => ({ event, seq }));
  }

  /** The commit landed: its events go to the outbox with their numbers (those given, else those staged). */
  async confirm(commitId: string, events?: readonly NumberedEvent[]): Promise<void> {
    if (events) await this.write(events, {});
    else for await (const batch of this.stagedBatches(commitId)) await this.write(batch, {});
    await this.staged.deleteMany({ commitId });
  }

  /** The commit lost its compare-and-set: its events never happened. */
  async discard(commitId: string): Promise<void> {
    await this.staged.deleteMany({ commitId });
  }

  private async *stagedBatches(commitId: string): AsyncGenerator<NumberedEvent[]> {
    const batch: NumberedEvent[] = [];
    for await (const s of this.staged.find({ commitId }, { projection: { _id: 0, event: 1, seq: 1 } })) {
      batch.push({ event: s.event, seq: s.seq });
      if (batch.length === BATCH) yield batch.splice(0);
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * Inserts events whose id is new, with their number (reserved at staging), or else numbered in one
   * block of the outbox sequence now.
   */
  private async write(events: readonly NumberedEvent[], marks: EventMarks): Promise<void> {
    if (events.length === 0) return;
    const ids = events.map((e) => e.event.id);
    const existing = new Set((await this.events.find({ id: { $in: ids } }, { projection: { _id: 0, id: 1 } }).toArray()).map((e) => e.id));
    const fresh = [...new Map(events.filter((e) => !existing.has(e.event.id)).map((e) => [e.event.id, e])).values()];
    if (fresh.length === 0) return;
    const unnumbered = fresh.filter((e) => e.seq === undefined).length;
    let next = unnumbered > 0 ? await this.counters.reserve('outbox', unnumbered) : 0;
    const ops: AnyBulkWriteOperation<EventDoc>[] = fresh.map(({ event, seq }) => ({
      updateOne: { filter: { id: event.id }, update: { $setOnInsert: { ...event, ...marks, seq: seq ?? next++, dispatched: false } }, upsert: true },
    }));
    await retryOnDuplicate(() => this.events.bulkWrite(ops, { ordered: false }));
  }

  /** The events a queue document of an earlier version carries (`pendingEvents`) go to the outbox, before it is rewritten or deleted. */
  async movePending(queueId: string): Promise<void> {
    const carrier = (await this.queues.findOne({ id: queueId }, { projection: { _id: 0, [PENDING_EVENTS]: 1 } })) as { pendingEvents?: OutboxEvent[] } | null;
    if (!carrier?.pendingEvents) return;
    await this.insertEvents(carrier.pendingEvents);
    await this.queues.updateOne({ id: queueId }, { $unset: { [PENDING_EVENTS]: '' } });
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

  async updateSubscription(id: string, expected: Partial<WebhookSubscription>, changes: Partial<WebhookSubscription>): Promise<boolean> {
    const { matchedCount } = await this.subscriptions.updateOne({ ...fieldsFilter(expected), id }, { $set: { ...changes } });
    return matchedCount === 1;
  }

  /**
   * The subscription goes first: from then on none of its deliveries is due (only enabled
   * subscriptions' are), and a fan-out that read it just before may still add some, which
   * `pruneOutbox` removes.
   */
  async deleteSubscription(id: string): Promise<boolean> {
    const { deletedCount } = await this.subscriptions.deleteOne({ id });
    await this.deliveries.deleteMany({ subscriptionId: id });
    return deletedCount === 1;
  }

  async undispatchedEvents(limit: number): Promise<StoredEvent[]> {
    await this.settleStaged();
    // Read before the outbox: a staged event confirmed in between is then found in the outbox.
    const held = await this.staged.findOne({ seq: { $gt: 0 } }, { projection: { _id: 0, seq: 1 }, sort: { seq: 1 } });
    const filter = held?.seq === undefined ? { dispatched: false } : { dispatched: false, seq: { $lt: held.seq } };
    const docs = await this.events.find(filter, { projection: { _id: 0 }, sort: { seq: 1 }, limit }).toArray();
    const ready: StoredEvent[] = [];
    for (const { dispatched: _, requiresQueueGone, writtenAt, ...e } of docs) {
      if (requiresQueueGone && (await this.queues.findOne({ id: requiresQueueGone }, { projection: { _id: 1 } }))) {
        if (Date.now() - Date.parse(writtenAt ?? e.at) > SETTLES_MS) await this.events.deleteOne({ id: e.id, dispatched: false });
        continue;
      }
      ready.push(e);
    }
    return ready;
  }

  /** Events a committer staged and neither confirmed nor discarded (it stopped): kept if its commit is in the queue document. */
  private async settleStaged(): Promise<void> {
    const before = new Date(Date.now() - SETTLES_MS).toISOString();
    const stale = await this.staged.find({ writtenAt: { $lt: before } }, { projection: { _id: 0, commitId: 1, queueId: 1 }, limit: BATCH }).toArray();
    for (const [commitId, queueId] of new Map(stale.map((s) => [s.commitId, s.queueId]))) {
      const landed = await this.queues.findOne({ id: queueId, commits: commitId }, { projection: { _id: 1 } });
      await (landed ? this.confirm(commitId) : this.discard(commitId));
    }
  }

  async dispatchEvents(fannedOut: readonly FannedOutEvent[]): Promise<void> {
    for (const { eventSeq, deliveries } of fannedOut) {
      if (deliveries.length > 0) {
        const ops: AnyBulkWriteOperation<OutboundDelivery>[] = deliveries.map((d) => ({
          updateOne: { filter: { subscriptionId: d.subscriptionId, eventId: d.eventId }, update: { $setOnInsert: { ...d } }, upsert: true },
        }));
        await retryOnDuplicate(() => this.deliveries.bulkWrite(ops, { ordered: false }));
      }
      await this.events.updateOne({ seq: eventSeq }, { $set: { dispatched: true } });
    }
  }

  async getEvent(id: string): Promise<StoredEvent | null> {
    const doc = await this.events.findOne({ id }, { projection: { _id: 0, dispatched: 0, requiresQueueGone: 0, writtenAt: 0 } });
    return doc as StoredEvent | null;
  }

  /** See due-deliveries.ts. */
  async dueDeliveries(now: string, limit: number): Promise<OutboundDelivery[]> {
    return dueDeliveries(this.subscriptions, this.deliveries, now, limit);
  }

  async claimDelivery(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    const { modifiedCount } = await this.deliveries.updateOne({ id, status: 'pending', nextAttemptAt: expectedNextAttemptAt }, { $set: { nextAttemptAt: until } });
    return modifiedCount === 1;
  }

  async putDelivery(d: OutboundDelivery): Promise<void> {
    await this.deliveries.replaceOne({ id: d.id }, { ...d });
  }

  async updateDelivery(id: string, expected: Partial<OutboundDelivery>, changes: Partial<OutboundDelivery>): Promise<boolean> {
    const { matchedCount } = await this.deliveries.updateOne({ ...fieldsFilter(expected), id }, { $set: { ...changes } });
    return matchedCount === 1;
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

  /** See outbox-prune.ts. */
  async pruneOutbox(before: string): Promise<number> {
    return pruneOutbox({ events: this.events, subscriptions: this.subscriptions, deliveries: this.deliveries }, before);
  }
}

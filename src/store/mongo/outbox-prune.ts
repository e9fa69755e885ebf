import type { Collection } from 'mongodb';
import { DELIVERY_STATUSES } from '../../domain/webhook-delivery.js';
import type { OutboxEvent } from '../../events/event-types.js';
import type { OutboundDelivery, WebhookSubscription } from '../outbox-store.js';
import { deleteInBatches } from './collection-ops.js';

/** Documents read per round trip, so no reply grows with history. */
const BATCH = 1000;

/**
 * In batches: finished deliveries created before `before` (counted, as on SQLite), the deliveries
 * of deleted subscriptions, then dispatched events before `before` that no delivery refers to.
 */
export async function pruneOutbox(
  c: { events: Collection<OutboxEvent & { seq: number; dispatched: boolean }>; subscriptions: Collection<WebhookSubscription>; deliveries: Collection<OutboundDelivery> },
  before: string,
): Promise<number> {
  let pruned = 0;
  for (const status of DELIVERY_STATUSES.filter((s) => s !== 'pending')) {
    pruned += await deleteInBatches(c.deliveries, { status, createdAt: { $lt: before } });
  }
  const subscriptionIds = (await c.subscriptions.find({}, { projection: { _id: 0, id: 1 } }).toArray()).map((s) => s.id);
  await deleteInBatches(c.deliveries, { subscriptionId: { $nin: subscriptionIds } });
  for (let after = 0; ; ) {
    const batch = await c.events
      .find({ dispatched: true, seq: { $gt: after }, at: { $lt: before } }, { projection: { _id: 0, id: 1, seq: 1 }, sort: { seq: 1 }, limit: BATCH })
      .toArray();
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.seq;
    const referenced = new Set(await c.deliveries.distinct('eventId', { eventId: { $in: batch.map((e) => e.id) } }));
    await c.events.deleteMany({ id: { $in: batch.filter((e) => !referenced.has(e.id)).map((e) => e.id) } });
  }
  return pruned;
}

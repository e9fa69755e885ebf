import type { Collection } from 'mongodb';
import type { OutboundDelivery, WebhookSubscription } from '../outbox-store.js';

/**
 * The server filters out deliveries not yet due and those of disabled (or deleted) subscriptions
 * before anything is counted; walking the rest in outbox order, a delivery behind an earlier
 * pending one of its PR is skipped, until `limit` are due (as SQLite's statement does).
 */
export async function dueDeliveries(
  subscriptions: Collection<WebhookSubscription>,
  deliveries: Collection<OutboundDelivery>,
  now: string,
  limit: number,
): Promise<OutboundDelivery[]> {
  const enabled = (await subscriptions.find({ enabled: true }, { projection: { _id: 0, id: 1 } }).toArray()).map((s) => s.id);
  if (enabled.length === 0 || limit <= 0) return [];
  const cursor = deliveries.find(
    { status: 'pending', subscriptionId: { $in: enabled }, nextAttemptAt: { $lte: now } },
    { projection: { _id: 0 }, sort: { seq: 1 }, batchSize: Math.max(limit, 100) },
  );
  const due: OutboundDelivery[] = [];
  try {
    for await (const d of cursor) {
      const earlier = await deliveries.findOne(
        { subscriptionId: d.subscriptionId, orderKey: d.orderKey, status: 'pending', seq: { $lt: d.seq } },
        { projection: { _id: 1 } },
      );
      if (!earlier) due.push(d as OutboundDelivery);
      if (due.length >= limit) break;
    }
  } finally {
    await cursor.close();
  }
  return due;
}

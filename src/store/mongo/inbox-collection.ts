import type { Collection, Db } from 'mongodb';
import type { InboxDelivery, InboxStore } from '../inbox-store.js';
import { isDuplicateKey } from './collection-ops.js';

const NO_ID = { projection: { _id: 0 } } as const;

/**
 * The GitHub webhook inbox in MongoDB: one document per delivery id (unique index), claimed by a
 * compare-and-set on `nextAttemptAt`. A payload must fit a document (16 MB); GitHub's rare larger
 * deliveries fail to store and are answered 500, so GitHub shows them as failed.
 */
export class MongoInbox implements InboxStore {
  private readonly inbox: Collection<InboxDelivery>;

  constructor(db: Db) {
    this.inbox = db.collection('github_inbox');
  }

  async createIndexes(): Promise<void> {
    await this.inbox.createIndexes([{ key: { id: 1 }, unique: true }, { key: { status: 1, nextAttemptAt: 1, receivedAt: 1 } }]);
  }

  async acceptInbound(delivery: InboxDelivery): Promise<boolean> {
    try {
      // A copy: the driver adds `_id` to what it inserts.
      await this.inbox.insertOne({ ...delivery });
      return true;
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
    const { name, payload, nextAttemptAt } = delivery;
    const retried = await this.inbox.updateOne(
      { id: delivery.id, status: 'failed' },
      { $set: { name, payload, nextAttemptAt, status: 'pending', attempts: 0, lastError: null } },
    );
    return retried.modifiedCount > 0;
  }

  /** Read in the index's order, so the server stops at `limit`: due deliveries are never sorted in memory with their payloads. */
  async dueInbound(now: string, limit: number): Promise<InboxDelivery[]> {
    return this.inbox.find({ status: 'pending', nextAttemptAt: { $lte: now } }, NO_ID).sort({ nextAttemptAt: 1, receivedAt: 1 }).limit(limit).toArray();
  }

  async claimInbound(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    const claimed = await this.inbox.updateOne({ id, status: 'pending', nextAttemptAt: expectedNextAttemptAt }, { $set: { nextAttemptAt: until } });
    return claimed.modifiedCount > 0;
  }

  async putInbound(delivery: InboxDelivery): Promise<void> {
    const { payload, status, attempts, nextAttemptAt, lastError } = delivery;
    await this.inbox.updateOne({ id: delivery.id }, { $set: { payload, status, attempts, nextAttemptAt, lastError } });
  }

  async pruneInbound(before: string): Promise<number> {
    return (await this.inbox.deleteMany({ status: { $ne: 'pending' }, receivedAt: { $lt: before } })).deletedCount;
  }
}

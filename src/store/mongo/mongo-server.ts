import type { Collection, Db } from 'mongodb';
import type { ServerStore } from '../store.js';
import { findOne, isDuplicateKey, retryOnDuplicate } from './collection-ops.js';

interface Secret {
  name: string;
  value: string;
}

/** A GitHub webhook delivery id already claimed, with when it was first seen. */
interface WebhookDelivery {
  id: string;
  at: string;
}

/** The server's own documents: its secrets and the GitHub webhook delivery ids it has claimed. */
export class MongoServer implements ServerStore {
  private readonly secrets: Collection<Secret>;
  private readonly deliveries: Collection<WebhookDelivery>;

  constructor(db: Db) {
    this.secrets = db.collection('secrets');
    this.deliveries = db.collection('webhook_deliveries');
  }

  async createIndexes(): Promise<void> {
    await Promise.all([
      this.secrets.createIndexes([{ key: { name: 1 }, unique: true }]),
      this.deliveries.createIndexes([{ key: { id: 1 }, unique: true }, { key: { at: 1 } }]),
    ]);
  }

  async getOrCreateSecret(name: string, create: () => string): Promise<string> {
    const existing = await findOne(this.secrets, { name });
    if (existing) return existing.value;
    // Insert-if-absent: of concurrent first callers, one insert lands and everyone reads it back.
    await retryOnDuplicate(() =>
      this.secrets.updateOne({ name }, { $setOnInsert: { name, value: create() } }, { upsert: true }),
    );
    const secret = await findOne(this.secrets, { name });
    if (!secret) throw new Error(`secret ${name} vanished after being created`);
    return secret.value;
  }

  async claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean> {
    await this.deliveries.deleteMany({ at: { $lt: keepSince } });
    // The unique index on id decides: of concurrent claims, exactly one insert lands.
    try {
      await this.deliveries.insertOne({ id: deliveryId, at });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  async releaseWebhookDelivery(deliveryId: string): Promise<void> {
    await this.deliveries.deleteOne({ id: deliveryId });
  }
}

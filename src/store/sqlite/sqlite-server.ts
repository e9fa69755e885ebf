import type Database from 'better-sqlite3';
import type { ServerStore } from '../store.js';

/** The server's own rows: its secrets and the GitHub webhook delivery ids it has claimed. */
export class SqliteServer implements ServerStore {
  private readonly stmt;
  private readonly claimDeliveryTx;

  constructor(db: Database.Database) {
    this.stmt = {
      secret: db.prepare('SELECT value FROM secrets WHERE name = ?').pluck(),
      insertSecret: db.prepare('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)'),
      pruneDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE at < ?'),
      insertDelivery: db.prepare('INSERT OR IGNORE INTO webhook_deliveries (id, at) VALUES (?, ?)'),
      deleteDelivery: db.prepare('DELETE FROM webhook_deliveries WHERE id = ?'),
    };
    this.claimDeliveryTx = db.transaction((deliveryId: string, at: string, keepSince: string): boolean => {
      this.stmt.pruneDeliveries.run(keepSince);
      return this.stmt.insertDelivery.run(deliveryId, at).changes === 1;
    });
  }

  async getOrCreateSecret(name: string, create: () => string): Promise<string> {
    const existing = this.stmt.secret.get(name) as string | undefined;
    if (existing !== undefined) return existing;
    // Another process may insert first; whichever row landed is the answer for everyone.
    this.stmt.insertSecret.run(name, create());
    return this.stmt.secret.get(name) as string;
  }

  async claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean> {
    return this.claimDeliveryTx.immediate(deliveryId, at, keepSince);
  }

  async releaseWebhookDelivery(deliveryId: string): Promise<void> {
    this.stmt.deleteDelivery.run(deliveryId);
  }
}

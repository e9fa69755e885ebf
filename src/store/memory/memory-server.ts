import type { ServerStore } from '../store.js';

/** The server's secrets and claimed GitHub webhook delivery ids, in memory. */
export class MemoryServer implements ServerStore {
  private readonly secrets = new Map<string, string>();
  /** Webhook delivery id -> when it was first seen. */
  private readonly deliveries = new Map<string, string>();

  async getOrCreateSecret(name: string, create: () => string): Promise<string> {
    const existing = this.secrets.get(name);
    if (existing !== undefined) return existing;
    const value = create();
    this.secrets.set(name, value);
    return value;
  }

  async claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean> {
    for (const [id, seen] of this.deliveries) if (seen < keepSince) this.deliveries.delete(id);
    if (this.deliveries.has(deliveryId)) return false;
    this.deliveries.set(deliveryId, at);
    return true;
  }

  async releaseWebhookDelivery(deliveryId: string): Promise<void> {
    this.deliveries.delete(deliveryId);
  }
}

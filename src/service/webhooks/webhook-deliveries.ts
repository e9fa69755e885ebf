import type { ServerStore } from '../../store/store.js';

/** How long delivery ids are remembered: GitHub lets a delivery be redelivered for 3 days. */
const DELIVERY_MEMORY_MS = 7 * 24 * 3600_000;

/**
 * The webhook deliveries handled (`x-github-delivery`), remembered in the store so that redeliveries
 * and other replicas skip them.
 */
export class WebhookDeliveries {
  constructor(private readonly server: Pick<ServerStore, 'claimWebhookDelivery' | 'releaseWebhookDelivery'>) {}

  /** True when this call is the first to claim the delivery (ids older than the memory are forgotten). */
  claim(deliveryId: string, at: Date): Promise<boolean> {
    const keepSince = new Date(at.getTime() - DELIVERY_MEMORY_MS).toISOString();
    return this.server.claimWebhookDelivery(deliveryId, at.toISOString(), keepSince);
  }

  /** Forgets a claimed delivery whose handling failed, so that its redelivery is handled. */
  release(deliveryId: string): Promise<void> {
    return this.server.releaseWebhookDelivery(deliveryId);
  }
}

import { Gauge, type Registry } from 'prom-client';
import type { WebhookHealth } from '../service/metrics-service.js';

/**
 * `mq_webhook_failing_seconds{webhook, format}`: how long every delivery of a webhook or chat channel
 * has failed (0 while it delivers). A failing channel never holds the queue back (deliveries run
 * beside it, from the outbox): this is where it shows.
 */
export function recordWebhookHealth(registry: Registry, webhooks: readonly WebhookHealth[], now: Date): void {
  const gauge = new Gauge({
    name: 'mq_webhook_failing_seconds',
    help: 'Seconds since the first failed delivery of a webhook or chat channel with no success since (0: delivering), by webhook id and format.',
    labelNames: ['webhook', 'format', 'enabled'],
    registers: [registry],
  });
  for (const w of webhooks) {
    const seconds = w.failingSince === null ? 0 : Math.max(0, (now.getTime() - Date.parse(w.failingSince)) / 1000);
    gauge.set({ webhook: w.id, format: w.format, enabled: String(w.enabled) }, seconds);
  }
}

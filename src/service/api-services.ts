import type { Clock } from '../domain/clock.js';
import type { OutboxStore } from '../store/outbox-store.js';
import type { OrgStore, QueueStore, ServerStore, TestCaseStore } from '../store/store.js';
import type { QueueTemplateStore } from '../store/template-store.js';
import { ApiAccess } from './access/api-access.js';
import { FlakyTestService } from './flaky/flaky-test-service.js';
import { QuarantineService } from './flaky/quarantine-service.js';
import { QueueListing } from './queue/queue-listing.js';
import { QueueOverviewService } from './queue/queue-overview.js';
import { QueueTemplateService } from './queue/queue-template-service.js';
import { Readiness } from './readiness.js';
import { WebhookService } from './webhooks/webhook-service.js';

/**
 * The services the REST API and the web page use besides the queue operations, over one store: the
 * HTTP door reaches the store only through these. A caller may replace any of them (e.g. a
 * FlakyTestService that tells the engine about test results).
 */
export function apiServices(
  store: { queues: QueueStore; orgs: OrgStore; tests: TestCaseStore; server: ServerStore; outbox: OutboxStore; templates: QueueTemplateStore; ping(): Promise<void> },
  clock: Clock,
  options: { webhookAllowedNetworks?: readonly string[] } = {},
) {
  const overview = new QueueOverviewService({ store, clock });
  return {
    access: new ApiAccess(store.orgs),
    readiness: new Readiness(store),
    overview,
    queueListing: new QueueListing(store.server, overview),
    quarantineService: new QuarantineService(store),
    flakyTestService: new FlakyTestService({ store, clock }),
    queueTemplates: new QueueTemplateService(store, clock),
    webhookService: new WebhookService({ store, clock, allowedNetworks: options.webhookAllowedNetworks ?? [] }),
  };
}

import { operation, type Operation } from './operation.js';
import {
  createWebhookSchema,
  deliveriesResponseSchema,
  deliveryRecordSchema,
  listWebhookDeliveriesSchema,
  redeliverSchema,
  updateWebhookSchema,
  webhookDeletedSchema,
  webhookListSchema,
  webhookRefSchema,
  webhookWithSecretSchema,
} from './schemas/webhooks.js';
import { strictBody } from './schemas/common.js';

/** POST /v1/webhooks/*: outbound webhook subscriptions and their delivery log (docs/webhooks.md). */
export const WEBHOOK_OPERATIONS: readonly Operation[] = [
  operation({
    path: '/webhooks/create',
    summary: "Subscribe a URL to the organization's queue and flaky-test events; the signing secret is answered once",
    request: createWebhookSchema,
    response: webhookWithSecretSchema,
    errorStatuses: [403, 409],
    run: (s, org, { targetBranch, ...input }) => s.webhookService.create(org, { ...input, branch: targetBranch }),
  }),
  operation({
    path: '/webhooks/list',
    summary: "The organization's webhooks (never their secrets)",
    request: strictBody({}),
    response: webhookListSchema,
    errorStatuses: [],
    run: (s, org) => s.webhookService.list(org),
  }),
  operation({
    path: '/webhooks/update',
    summary: 'Change a webhook; omitted fields stay unchanged. Enabling it again clears why it was disabled',
    request: updateWebhookSchema,
    response: webhookWithSecretSchema,
    errorStatuses: [403, 404],
    run: (s, org, { targetBranch, ...input }) => s.webhookService.update(org, { ...input, ...(targetBranch !== undefined ? { branch: targetBranch } : {}) }),
  }),
  operation({
    path: '/webhooks/delete',
    summary: 'Delete a webhook and its delivery log; a missing one answers {"deleted": false}',
    request: webhookRefSchema,
    response: webhookDeletedSchema,
    errorStatuses: [],
    run: (s, org, input) => s.webhookService.delete(org, input.id),
  }),
  operation({
    path: '/webhooks/deliveries',
    summary: 'A page of the delivery log, newest first: status, attempts, last response code',
    request: listWebhookDeliveriesSchema,
    response: deliveriesResponseSchema,
    errorStatuses: [404],
    run: (s, org, { page_query, ...filter }) =>
      s.webhookService.deliveries(org, { ...filter, pageSize: page_query.page_size, pageToken: page_query.page_token }),
  }),
  operation({
    path: '/webhooks/redeliver',
    summary: 'Send a delivery again, from the start of the retry schedule',
    request: redeliverSchema,
    response: deliveryRecordSchema,
    errorStatuses: [404],
    run: (s, org, input) => s.webhookService.redeliver(org, input.deliveryId),
  }),
];

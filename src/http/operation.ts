import type { z } from 'zod';
import type { QueueTemplateService } from '../service/queue/queue-template-service.js';
import type { ApiToken, Org } from '../domain/org.js';
import type { FlakyTestService } from '../service/flaky/flaky-test-service.js';
import type { QuarantineService } from '../service/flaky/quarantine-service.js';
import type { QueueListing } from '../service/queue/queue-listing.js';
import type { QueueService } from '../service/queue/queue-service.js';
import type { WebhookService } from '../service/webhooks/webhook-service.js';
import { validate } from './validate.js';

export interface OperationServices {
  queueService: QueueService;
  quarantineService: Pick<QuarantineService, 'list'>;
  queueListing: Pick<QueueListing, 'list'>;
  flakyTestService: FlakyTestService;
  webhookService: WebhookService;
  queueTemplates: QueueTemplateService;
}

/**
 * One POST operation under /v1: its request schema validates the body AND is what the OpenAPI
 * document shows, so the two cannot disagree.
 */
export interface Operation {
  /** Path below /v1. */
  path: string;
  summary: string;
  request: z.ZodType;
  response: z.ZodType;
  /** Error statuses this operation can answer beyond those of every operation (400, 401, 413, 415, 429). */
  errorStatuses: number[];
  /** Validates `body` (400 invalid_request) and runs the operation for `org`; `token` is who calls. */
  run(services: OperationServices, org: Org, body: unknown, token: ApiToken): Promise<unknown>;
}

export function operation<S extends z.ZodType>(def: {
  path: string;
  summary: string;
  request: S;
  response: z.ZodType;
  errorStatuses: number[];
  run: (services: OperationServices, org: Org, input: z.output<S>, token: ApiToken) => Promise<unknown>;
}): Operation {
  return { ...def, run: (services, org, body, token) => def.run(services, org, validate(def.request, body), token) };
}

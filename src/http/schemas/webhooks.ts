import { z } from 'zod';
import { DELIVERY_STATUSES, MAX_URL_LENGTH, SUBSCRIPTION_FORMATS } from '../../domain/webhook-delivery.js';
import { EVENT_PATTERN } from '../../events/event-filter.js';
import { VERDICT_CODES } from '../../domain/verdict/verdict.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE } from '../../service/flaky/quarantine-service.js';
import type { DeliveryRecord, WebhookRecord } from '../../service/webhooks/webhook-service.js';
import { pageQuerySchema, repoSchema, strictBody, targetBranchSchema } from './common.js';
import { pageSchema } from './responses.js';
import { boolean, liberalEnum, nonEmptyString, optionalField } from './fields.js';

/** Request and response bodies of POST /v1/webhooks/* (docs/webhooks.md). */

const MAX_EVENT_PATTERNS = 32;
const idField = (what: string) => nonEmptyString(100, what);

const urlField = nonEmptyString(MAX_URL_LENGTH, 'where events are POSTed: https at a public address (or a network allowed by MERGEQ_WEBHOOK_ALLOWED_NETWORKS, where http is accepted too)');
export const eventsField = z
  .array(
    z
      .string({ error: 'expected a string' })
      .max(64, { error: 'must be at most 64 characters' })
      .regex(EVENT_PATTERN, { error: 'expected an event type such as "pull_request.merged", a group such as "pull_request.*", or "*"' }),
    { error: (iss) => (iss.input === undefined ? 'Required' : 'expected an array of event types') },
  )
  .min(1, { error: 'name at least one event type' })
  .max(MAX_EVENT_PATTERNS, { error: `at most ${MAX_EVENT_PATTERNS} entries` })
  .describe('event types to send; wildcards "pull_request.*", "queue.*", "test_case.*", "*"');
const formatField = liberalEnum(
  SUBSCRIPTION_FORMATS,
  'standard (signed JSON event), slack (a short message for merged, failed, cancelled), or a chat channel: slack_blocks (Slack incoming webhook, Block Kit) or teams (Teams Workflows webhook, Adaptive Card); docs/notifications.md',
);
export const verdictsField = z
  .array(liberalEnum(VERDICT_CODES, 'a verdict code'), { error: 'expected an array of verdict codes' })
  .max(VERDICT_CODES.length, { error: `at most ${VERDICT_CODES.length} entries` })
  .describe('chat channels only: the verdicts whose pull-request events are sent (default ["culprit"]); queue events follow `events`');
export const mentionsField = z
  .record(z.string().max(39), z.string({ error: 'expected a string' }).max(200, { error: 'must be at most 200 characters' }))
  .describe('chat channels only: GitHub login → chat user to mention (a Slack member id U…, a Teams user e-mail or id)');
const slackBotTokenField = z
  .string({ error: 'expected a string' })
  .max(255, { error: 'must be at most 255 characters' })
  .describe(
    'slack_blocks channels only: a Slack bot token (xoxb-…, scope chat:write) to also send the pull request\'s author, when `mentions` maps their login, a direct message; a secret: stored, never answered nor logged (docs/notifications.md)',
  );
const nameField = z
  .string({ error: 'expected a string' })
  .max(63, { error: 'must be at most 63 characters' })
  .describe('what .github/mergeq.yml may call the channel by (besides its id): lower-case letters, digits, ".", "_", "-"; unique in the organization');
const descriptionField = z.string({ error: 'expected a string' }).max(500, { error: 'must be at most 500 characters' }).describe('a note for people');

export const createWebhookSchema = strictBody({
  url: urlField,
  name: optionalField(nameField),
  events: eventsField,
  format: optionalField(formatField),
  repo: optionalField(repoSchema).describe('only events of this repository'),
  targetBranch: optionalField(targetBranchSchema).describe('only events of queues of this branch'),
  description: optionalField(descriptionField),
  enabled: optionalField(boolean('default true')),
  verdicts: optionalField(verdictsField),
  mentions: optionalField(mentionsField),
  slackBotToken: optionalField(slackBotTokenField),
});

export const webhookRefSchema = strictBody({ id: idField('the webhook id (wh_…)') });

/** Omitted fields stay unchanged; `repo`/`targetBranch`/`description` null remove the filter or note. */
export const updateWebhookSchema = strictBody({
  id: idField('the webhook id (wh_…)'),
  name: nameField.nullable().optional().describe('a new name; null: none'),
  url: optionalField(urlField),
  events: optionalField(eventsField),
  format: optionalField(formatField),
  repo: repoSchema.nullable().optional().describe('only events of this repository; null: all'),
  targetBranch: targetBranchSchema.nullable().optional().describe('only events of queues of this branch; null: all'),
  description: descriptionField.nullable().optional(),
  enabled: optionalField(boolean('false stops deliveries; true starts them again (and clears a disabled reason)')),
  rotateSecret: optionalField(boolean('replace the secret; the new one is answered once')),
  verdicts: optionalField(verdictsField),
  mentions: optionalField(mentionsField),
  slackBotToken: slackBotTokenField.nullable().optional().describe('a new Slack bot token for direct messages; null: none (no more direct messages)'),
});

export const listWebhookDeliveriesSchema = strictBody({
  webhookId: optionalField(idField('only deliveries of this webhook')),
  status: optionalField(liberalEnum(DELIVERY_STATUSES, 'only deliveries in this status')),
  eventId: optionalField(idField('only deliveries of this event (evt_…)')),
  page_query: optionalField(pageQuerySchema(MIN_PAGE_SIZE, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, 'page size'))
    .transform((v) => v ?? { page_size: DEFAULT_PAGE_SIZE, page_token: '' })
    .describe('pagination options; the first page by default'),
});

export const redeliverSchema = strictBody({ deliveryId: idField('the delivery id (dlv_…)') });

const timestamp = z.string().describe('ISO 8601 UTC with milliseconds');
const repoRecord = z.object({ host: z.string(), owner: z.string(), name: z.string() });

const webhookRecordShape = {
  id: z.string(),
  name: z.string().nullable().describe('what .github/mergeq.yml may call it by; null: none'),
  url: z.string().describe("where it POSTs; a chat channel's URL is a secret: only its scheme, host and first path segment are shown"),
  format: z.enum(SUBSCRIPTION_FORMATS),
  events: z.array(z.string()),
  repo: repoRecord.nullable(),
  branch: z.string().nullable(),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable().describe('why mergeq disabled it (failing for 3 days); null otherwise'),
  failingSince: timestamp.nullable().describe('first failed attempt since the last success'),
  createdAt: timestamp,
  updatedAt: timestamp,
  verdicts: z.array(z.enum(VERDICT_CODES)).nullable().describe("a chat channel's verdicts; null for other formats"),
  mentions: z.record(z.string(), z.string()).nullable().describe("a chat channel's login → chat user map; null for other formats"),
  directMessages: z
    .boolean()
    .nullable()
    .describe('a slack_blocks channel: true when it has a Slack bot token, so mapped authors get a direct message (the token is never answered); null for other formats'),
  fileRules: z
    .array(
      z.object({
        repo: z.string().describe('host/owner/name: the repository whose events these rules are for'),
        source: z.string().describe('.github/mergeq.yml@<sha>: the commit they were applied from'),
        events: z.array(z.string()).nullable().describe("replaces the channel's events for this repository; null: the channel's"),
        verdicts: z.array(z.enum(VERDICT_CODES)).nullable().describe("replaces the channel's verdicts for this repository; null: the channel's"),
        branches: z.array(z.string()).nullable().describe('only events of queues of these branches (names or patterns); null: all'),
        mentions: z.record(z.string(), z.string()).nullable().describe("login → chat user over the channel's map, for this repository"),
      }),
    )
    .nullable()
    .describe("a chat channel's rules set by repositories' .github/mergeq.yml for their own events (docs/notifications.md); null for other formats"),
};
export const webhookRecordSchema = z.object(webhookRecordShape) satisfies z.ZodType<WebhookRecord>;
export const webhookWithSecretSchema = z.object({
  ...webhookRecordShape,
  secret: z.string().optional().describe('whsec_…: shown only when created or rotated; verifies the webhook-signature header'),
});
export const webhookListSchema = z.object({ webhooks: z.array(webhookRecordSchema) });
export const webhookDeletedSchema = z.object({ deleted: z.boolean() });

export const deliveryRecordSchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  eventId: z.string().describe('also the webhook-id header'),
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  nextAttemptAt: timestamp.nullable(),
  lastAttemptAt: timestamp.nullable(),
  responseStatus: z.number().int().nullable().describe("the receiver's last HTTP status; null: no answer"),
  lastError: z.string().nullable(),
  createdAt: timestamp,
}) satisfies z.ZodType<DeliveryRecord>;

export const deliveriesResponseSchema = z.object({
  deliveries: z.array(deliveryRecordSchema),
  page: pageSchema,
});

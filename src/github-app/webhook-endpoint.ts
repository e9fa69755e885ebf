import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { WEBHOOKS_PATH } from '../http/app.js';
import { WEBHOOK_BODY_LIMIT } from '../http/body/body-limits.js';
import { isJsonMediaType } from '../http/body/media-type.js';
import { readBody } from '../http/body/read-body.js';
import { httpErrors } from '../http/problem.js';
import { ServiceError } from '../service/errors.js';
import type { InboundDelivery } from '../service/github/webhook-inbox.js';

export type WebhookDelivery = InboundDelivery;

export interface WebhookEndpointDeps {
  secret: string;
  /**
   * Takes a verified delivery: stores it in the inbox (`WebhookInbox.accept`), which handles it after
   * the answer; false for a redelivery of a stored one. GitHub is answered 200 once this resolves,
   * 500 when it throws (GitHub shows the delivery failed, and it can be redelivered).
   */
  receive: (delivery: WebhookDelivery) => Promise<boolean>;
  logger: Logger;
  bodyTimeoutMs: number;
}

const SIGNATURE_HEADER = 'x-hub-signature-256';
/** GitHub's delivery ids are GUIDs; the inbox keys its rows by them. */
const DELIVERY_ID = /^[\w.-]{1,100}$/;

/**
 * POST /api/github/webhooks: reads at most 25 MiB while it streams, checks the HMAC signature over
 * the raw bytes before parsing anything, then stores the delivery and answers; it is handled after. A refused delivery is logged by its status
 * and reason only: never its payload, signature or any header value.
 */
export function webhookEndpoint(deps: WebhookEndpointDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (req.path !== WEBHOOKS_PATH) return next();
    if (req.method !== 'POST') {
      res.set('Allow', 'POST');
      throw httpErrors.methodNotAllowed(req.method, ['POST']);
    }
    const id = req.get('x-github-delivery');
    const name = req.get('x-github-event');
    const signature = req.get(SIGNATURE_HEADER);
    let stored: boolean;
    try {
      for (const [header, value] of [['x-github-delivery', id], ['x-github-event', name], [SIGNATURE_HEADER, signature]] as const) {
        if (!value) throw missingHeader(header);
      }
      if (!DELIVERY_ID.test(id!)) throw httpErrors.invalidRequest([{ path: 'x-github-delivery', message: 'must be a delivery id (letters, digits, ._-)' }], 'the x-github-delivery header is not a delivery id');
      if (!isJsonMediaType(req.get('content-type'))) {
        throw httpErrors.unsupportedMediaType('webhooks must be sent as application/json (set the App webhook content type to JSON)');
      }
      const raw = await readBody(req, res, { limit: WEBHOOK_BODY_LIMIT, timeoutMs: deps.bodyTimeoutMs });
      if (!signatureMatches(deps.secret, raw, signature!)) throw badSignature();
      let payload: unknown;
      try {
        payload = JSON.parse(raw.toString('utf8'));
      } catch {
        throw httpErrors.invalidJson('the signed payload is not valid JSON');
      }
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        throw httpErrors.invalidRequest([{ path: '(body)', message: 'must be a JSON object' }], 'the signed payload must be a JSON object');
      }
      stored = await deps.receive({ id: id!, name: name!, payload });
    } catch (err) {
      if (err instanceof ServiceError) {
        // Nothing the sender chose (not even the delivery id): only what the server decided.
        deps.logger.warn({ status: err.status, reason: err.code, field: err.errors?.[0]?.path }, 'webhook delivery refused');
        throw err;
      }
      deps.logger.error({ deliveryId: shortValue(id), eventName: shortValue(name), err: { type: (err as Error)?.name, message: String((err as Error)?.message).slice(0, 300) } }, 'storing a webhook delivery failed');
      throw httpErrors.internal();
    }
    res.status(200).type('text/plain').send(stored ? 'ok\n' : 'already received\n');
  };
}

/** `sha256=<hex>` of the body with the secret, compared in constant time. */
export function signatureMatches(secret: string, body: Buffer, signature: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Delivery ids and event names of a verified delivery: logged only when short and plain. */
function shortValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^[\w.-]{1,64}$/.test(value) ? value : '[unprintable]';
}

function missingHeader(header: string): ServiceError {
  return httpErrors.invalidRequest([{ path: header, message: 'Required' }], `the ${header} header is required`);
}

function badSignature(): ServiceError {
  const message = 'does not match the body signed with the webhook secret';
  return httpErrors.invalidRequest([{ path: SIGNATURE_HEADER, message }], `the ${SIGNATURE_HEADER} signature ${message}`);
}

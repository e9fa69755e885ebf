import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of the key; each delivery is signed with HMAC-SHA256 over `id.timestamp.body` and sent as
 * `webhook-signature: v1,<base64>`, with `webhook-id` (the event id, the same on every retry) and
 * `webhook-timestamp` (seconds since the epoch).
 */
export const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

export function signedHeaders(secret: string, id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'mergeq-webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}

/** What a receiver does: true when one of the space-separated `v1,` signatures matches. */
export function verifySignature(secret: string, headers: { id: string; timestamp: string; signature: string }, body: string): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isSafeInteger(timestamp)) return false;
  const expected = Buffer.from(signature(secret, headers.id, timestamp, body));
  return headers.signature.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

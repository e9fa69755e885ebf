import type { WebhookSubscription } from '../../store/outbox-store.js';
import { ServiceError } from '../errors.js';

/** A webhook's name: what `.github/mergeq.yml` calls a chat channel by (docs/notifications.md). */
export const CHANNEL_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/**
 * The name asked for a webhook, checked: lower-case letters, digits, `.`, `_`, `-` (400 naming
 * `name`), and not another webhook's of the organization (409 `webhook_name_taken`). null: none.
 */
export function checkedName(asked: string | null, others: readonly WebhookSubscription[], self?: string): string | null {
  if (asked === null) return null;
  if (!CHANNEL_NAME.test(asked)) {
    const message = 'expected 1-63 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit';
    throw new ServiceError(400, 'invalid_request', 'Invalid request', `name: ${message}`, [{ path: 'name', message }]);
  }
  const taken = others.find((s) => s.id !== self && s.name === asked);
  if (taken) {
    throw new ServiceError(409, 'webhook_name_taken', 'Webhook name taken', `webhook ${taken.id} of this organization is already named ${asked}`, [
      { path: 'name', message: 'another webhook of the organization has it' },
    ]);
  }
  return asked;
}

/** The organization's webhook that `ref` names: its id (wh_…) or its name. */
export function channelNamed(ref: string, subscriptions: readonly WebhookSubscription[]): WebhookSubscription | undefined {
  return subscriptions.find((s) => s.id === ref || (s.name !== undefined && s.name === ref.toLowerCase()));
}

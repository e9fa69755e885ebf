import type { OutboundDelivery, OutboxStore, WebhookSubscription } from '../store/outbox-store.js';
import type { PostResult } from './post-delivery.js';

export interface AttemptPolicy {
  at: Date;
  schedule: readonly number[];
  disableAfterMs: number;
}

/**
 * Records one attempt: a success ends the delivery and the subscription's failing streak; a failure
 * schedules the next attempt (or gives up after the schedule), and a subscription failing for
 * `disableAfterMs` is disabled with the reason on it.
 */
export async function recordAttempt(
  outbox: Pick<OutboxStore, 'putDelivery' | 'getSubscription' | 'putSubscription'>,
  delivery: OutboundDelivery,
  subscription: WebhookSubscription,
  result: PostResult,
  policy: AttemptPolicy,
): Promise<void> {
  const at = policy.at.toISOString();
  const retryIndex = delivery.retryIndex + 1;
  const wait = policy.schedule[retryIndex - 1];
  const updated: OutboundDelivery = {
    ...delivery,
    attempts: delivery.attempts + 1,
    retryIndex,
    lastAttemptAt: at,
    responseStatus: result.status,
    lastError: result.ok ? null : result.error,
    status: result.ok ? 'succeeded' : wait === undefined ? 'failed' : 'pending',
    nextAttemptAt: result.ok || wait === undefined ? at : new Date(policy.at.getTime() + wait).toISOString(),
  };
  await outbox.putDelivery(updated);

  // Read again: another delivery of this subscription may have changed it meanwhile.
  const current = (await outbox.getSubscription(subscription.id)) ?? null;
  if (!current) return;
  if (result.ok) {
    if (current.failingSince !== null) await outbox.putSubscription({ ...current, failingSince: null, updatedAt: at });
    return;
  }
  const failingSince = current.failingSince ?? at;
  const failingForMs = policy.at.getTime() - Date.parse(failingSince);
  if (current.enabled && failingForMs >= policy.disableAfterMs) {
    const reason = `disabled at ${at}: every delivery failed since ${failingSince} (last: ${updated.lastError ?? 'unknown'}); fix the receiver and enable it again`;
    await outbox.putSubscription({ ...current, enabled: false, disabledReason: reason, failingSince, updatedAt: at });
  } else if (current.failingSince === null) {
    await outbox.putSubscription({ ...current, failingSince });
  }
}

import type { OutboundDelivery, OutboxStore, WebhookSubscription } from '../store/outbox-store.js';
import { LOST, retryOnConflict } from '../store/store.js';
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
  outbox: Pick<OutboxStore, 'updateDelivery' | 'getDelivery' | 'getSubscription' | 'updateSubscription'>,
  delivery: OutboundDelivery,
  subscription: WebhookSubscription,
  result: PostResult,
  policy: AttemptPolicy,
): Promise<void> {
  const at = policy.at.toISOString();
  const retryIndex = delivery.retryIndex + 1;
  const wait = policy.schedule[retryIndex - 1];
  const outcome = { lastAttemptAt: at, responseStatus: result.status, lastError: result.ok ? null : result.error };
  // A receiver that asked to wait (Slack's Retry-After) is not tried again sooner.
  const waitMs = wait === undefined ? undefined : Math.max(wait, (!result.ok && result.retryAfterMs) || 0);
  const next: Partial<OutboundDelivery> = {
    retryIndex,
    status: result.ok ? 'succeeded' : waitMs === undefined ? 'failed' : 'pending',
    nextAttemptAt: result.ok || waitMs === undefined ? at : new Date(policy.at.getTime() + waitMs).toISOString(),
    ...(result.sent ? { sentParts: result.sent } : {}),
  };
  // Still as claimed: the attempt decides what comes next. Changed meanwhile (a person redelivered it):
  // that decision stands, and the attempt only records itself.
  const { attempts, retryIndex: claimedIndex, nextAttemptAt: claim } = delivery;
  if (!(await outbox.updateDelivery(delivery.id, { status: 'pending', nextAttemptAt: claim, retryIndex: claimedIndex, attempts }, { ...outcome, ...next, attempts: attempts + 1 }))) {
    await retryOnConflict(`delivery ${delivery.id}`, async () => {
      const current = await outbox.getDelivery(delivery.id);
      if (!current) return;
      return (await outbox.updateDelivery(current.id, { attempts: current.attempts }, { ...outcome, attempts: current.attempts + 1 })) ? undefined : LOST;
    });
  }

  // Only the failing streak and what it decides are changed, under the condition that they are still
  // as read: a person's change meanwhile (a fixed URL, enabling it again) is kept, and this decides again.
  await retryOnConflict(`webhook ${subscription.id}`, async () => {
    const current = await outbox.getSubscription(subscription.id);
    if (!current) return;
    const change = healthChange(current, result, outcome.lastError, policy);
    if (!change) return;
    const expected = { enabled: current.enabled, failingSince: current.failingSince, disabledReason: current.disabledReason };
    return (await outbox.updateSubscription(current.id, expected, change)) ? undefined : LOST;
  });
}

/** What an attempt's outcome changes on its subscription; null when nothing. */
function healthChange(current: WebhookSubscription, result: PostResult, lastError: string | null, policy: AttemptPolicy): Partial<WebhookSubscription> | null {
  const at = policy.at.toISOString();
  if (result.ok) return current.failingSince === null ? null : { failingSince: null, updatedAt: at };
  const failingSince = current.failingSince ?? at;
  const failingForMs = policy.at.getTime() - Date.parse(failingSince);
  if (current.enabled && failingForMs >= policy.disableAfterMs) {
    const reason = `disabled at ${at}: every delivery failed since ${failingSince} (last: ${lastError ?? 'unknown'}); fix the receiver and enable it again`;
    return { enabled: false, disabledReason: reason, failingSince, updatedAt: at };
  }
  return current.failingSince === null ? { failingSince } : null;
}

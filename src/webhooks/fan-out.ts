import { isChatFormat } from '../domain/webhook-delivery.js';
import { matchesAny } from '../events/event-filter.js';
import type { OutboxEvent } from '../events/event-types.js';
import type { WebhookSubscription } from '../store/outbox-store.js';
import { SLACK_EVENT_TYPES } from './payload.js';

/**
 * Whether a subscription is sent an event: enabled, of the event's organization (the caller picks
 * those), its `events` patterns match, its repository and branch filters match (test-case events
 * have no branch: a branch filter does not hold them back), a `slack` one only for
 * merged/failed/cancelled, and a chat channel a PR's event only when its transition gave one of the
 * channel's verdicts.
 */
export function subscriptionWants(s: WebhookSubscription, event: OutboxEvent): boolean {
  if (!s.enabled || !matchesAny(event.type, s.events)) return false;
  if (s.repoKey !== null && s.repoKey !== event.repoKey) return false;
  if (s.branch !== null && event.branch !== null && s.branch !== event.branch) return false;
  if (isChatFormat(s.format)) return chatWants(s, event);
  return s.format !== 'slack' || SLACK_EVENT_TYPES.has(event.type);
}

function chatWants(s: WebhookSubscription, event: OutboxEvent): boolean {
  if (event.data.kind === 'queue') return true;
  if (event.data.kind !== 'pull_request') return false;
  const verdict = event.data.entry.history.at(-1)?.verdict;
  return verdict !== undefined && (s.chat?.verdicts ?? []).includes(verdict.code);
}

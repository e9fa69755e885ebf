import { isChatFormat } from '../domain/webhook-delivery.js';
import { matchesAny } from '../events/event-filter.js';
import type { OutboxEvent } from '../events/event-types.js';
import type { ChannelFileRules, WebhookSubscription } from '../store/outbox-store.js';
import { SLACK_EVENT_TYPES } from './payload.js';
import { branchMatches } from '../domain/branch-glob.js';

/**
 * Whether a subscription is sent an event: enabled, of the event's organization (the caller picks
 * those), its `events` patterns match, its repository and branch filters match (test-case events
 * have no branch: a branch filter does not hold them back), a `slack` one only for
 * merged/failed/cancelled, and a chat channel a PR's event only when its transition gave one of the
 * channel's verdicts. A chat channel's rules for the event's repository from that repository's
 * `.github/mergeq.yml` (`fileRules`) replace the channel's `events` and `verdicts` they name, and
 * their `branches` hold back events of other queues.
 */
export function subscriptionWants(s: WebhookSubscription, event: OutboxEvent): boolean {
  const fileRules = isChatFormat(s.format) ? fileRulesFor(s, event.repoKey) : undefined;
  if (!s.enabled || !matchesAny(event.type, fileRules?.events ?? s.events)) return false;
  if (s.repoKey !== null && s.repoKey !== event.repoKey) return false;
  if (s.branch !== null && event.branch !== null && s.branch !== event.branch) return false;
  if (fileRules?.branches && event.branch !== null && !fileRules.branches.some((p) => branchMatches(p, event.branch!))) return false;
  if (isChatFormat(s.format)) return chatWants(s, event, fileRules);
  return s.format !== 'slack' || SLACK_EVENT_TYPES.has(event.type);
}

function chatWants(s: WebhookSubscription, event: OutboxEvent, fileRules: ChannelFileRules | undefined): boolean {
  if (event.data.kind === 'queue') return true;
  if (event.data.kind !== 'pull_request') return false;
  const verdict = event.data.entry.history.at(-1)?.verdict;
  return verdict !== undefined && (fileRules?.verdicts ?? s.chat?.verdicts ?? []).includes(verdict.code);
}

/** A chat channel's login → chat user map for a repository's events: its own, with that repository's file's over it. */
export function mentionsFor(s: WebhookSubscription, repoKey: string): Readonly<Record<string, string>> {
  const fromFile = fileRulesFor(s, repoKey)?.mentions;
  return fromFile ? { ...(s.chat?.mentions ?? {}), ...fromFile } : (s.chat?.mentions ?? {});
}

/** The rules a repository's file set for a channel, if any. */
export function fileRulesFor(s: WebhookSubscription, repoKey: string): ChannelFileRules | undefined {
  return s.fileRules?.find((r) => r.repoKey === repoKey);
}


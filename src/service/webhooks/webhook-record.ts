import type { RepoRef } from '../../domain/repo.js';
import type { VerdictCode } from '../../domain/verdict/verdict.js';
import type { SubscriptionFormat } from '../../domain/webhook-delivery.js';
import type { WebhookSubscription } from '../../store/outbox-store.js';
import { shownUrl } from '../notifications/chat-rules.js';

export interface WebhookRecord {
  id: string;
  /** What `.github/mergeq.yml` may call it by; null: none. */
  name: string | null;
  /** A chat channel's URL is its secret: only its scheme, host and first path segment are shown. */
  url: string;
  format: SubscriptionFormat;
  events: string[];
  repo: RepoRef | null;
  branch: string | null;
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
  /** A chat channel's verdicts (docs/notifications.md); null for the other formats. */
  verdicts: VerdictCode[] | null;
  /** A chat channel's GitHub login → chat user map; null for the other formats. */
  mentions: Record<string, string> | null;
  /** A Slack channel: whether it has a bot token, so mapped authors get a direct message (the token is never shown); null for other formats. */
  directMessages: boolean | null;
  /** A chat channel's rules set by repositories' `.github/mergeq.yml` for their own events; null for other formats. */
  fileRules: FileRulesRecord[] | null;
}

/** One repository's rules for a chat channel, from its `.github/mergeq.yml`; null: the channel's own. */
export interface FileRulesRecord {
  /** host/owner/name */
  repo: string;
  /** `.github/mergeq.yml@<sha>` */
  source: string;
  events: string[] | null;
  verdicts: VerdictCode[] | null;
  branches: string[] | null;
  mentions: Record<string, string> | null;
}

/** What the API and the CLI show of a subscription: never its secret, its bot token, nor a chat channel's whole URL. */
export function toRecord(s: WebhookSubscription): WebhookRecord {
  return {
    id: s.id,
    name: s.name ?? null,
    url: shownUrl(s.format, s.url),
    format: s.format,
    events: [...s.events],
    repo: s.repo,
    branch: s.branch,
    description: s.description,
    enabled: s.enabled,
    disabledReason: s.disabledReason,
    failingSince: s.failingSince,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    verdicts: s.chat ? [...s.chat.verdicts] : null,
    mentions: s.chat ? { ...s.chat.mentions } : null,
    directMessages: s.format === 'slack_blocks' ? Boolean(s.slackBotToken) : null,
    fileRules: s.chat
      ? (s.fileRules ?? []).map((r) => ({
          repo: r.repoKey,
          source: r.source,
          events: r.events ?? null,
          verdicts: r.verdicts ?? null,
          branches: r.branches ?? null,
          mentions: r.mentions ?? null,
        }))
      : null,
  };
}

import { VERDICT_CODES, type VerdictCode } from '../../domain/verdict/verdict.js';
import { isChatFormat, type SubscriptionFormat } from '../../domain/webhook-delivery.js';
import type { ChatRules } from '../../store/outbox-store.js';
import { ServiceError } from '../errors.js';

/** Verdicts a chat channel is sent when its creator names none: the one that asks its author to act. */
export const DEFAULT_CHAT_VERDICTS: readonly VerdictCode[] = ['culprit'];
export const MAX_MENTIONS = 500;
export const LOGIN = /^[a-z\d](?:[a-z\d-]{0,38})$/i;

export interface ChatRulesInput {
  verdicts?: VerdictCode[] | undefined;
  /** GitHub login → chat user (a Slack member id, a Teams user's e-mail or id). */
  mentions?: Record<string, string> | undefined;
}

/**
 * A channel's rules (docs/notifications.md) from what was asked, over its `current` ones: only chat
 * formats have them (400 `invalid_request` otherwise); logins are kept lower-case.
 */
export function chatRulesFor(format: SubscriptionFormat, input: ChatRulesInput, current?: ChatRules): ChatRules | undefined {
  if (!isChatFormat(format)) {
    if (input.verdicts !== undefined || input.mentions !== undefined) {
      const path = input.verdicts !== undefined ? 'verdicts' : 'mentions';
      throw new ServiceError(400, 'invalid_request', 'Invalid request', `${path} is for chat channels only (format slack_blocks or teams)`, [
        { path, message: 'only for format slack_blocks or teams' },
      ]);
    }
    return undefined;
  }
  const verdicts = input.verdicts ?? current?.verdicts ?? [...DEFAULT_CHAT_VERDICTS];
  const mentions = input.mentions === undefined ? (current?.mentions ?? {}) : normalMentions(input.mentions);
  return { verdicts: VERDICT_CODES.filter((c) => verdicts.includes(c)), mentions };
}

/** A Slack bot token as Slack issues them (`xoxb-` and letters, digits, dashes). */
const SLACK_BOT_TOKEN = /^xoxb-[A-Za-z0-9-]{1,250}$/;

/**
 * A channel's Slack bot token (for direct messages to authors) from what was asked over its
 * `current` one: only `slack_blocks` channels carry one (400 naming `slackBotToken` otherwise; a
 * move to another format drops it); null removes it. Never echoed in an error.
 */
export function slackBotTokenFor(format: SubscriptionFormat, asked: string | null | undefined, current?: string): string | undefined {
  if (asked === null) return undefined;
  if (asked === undefined) return format === 'slack_blocks' ? current : undefined;
  if (format !== 'slack_blocks') throw invalid('slackBotToken', 'only for format slack_blocks (a Slack channel)');
  if (!SLACK_BOT_TOKEN.test(asked)) throw invalid('slackBotToken', 'expected a Slack bot token (xoxb-…)');
  return asked;
}

function normalMentions(mentions: Record<string, string>): Record<string, string> {
  const entries = Object.entries(mentions);
  if (entries.length > MAX_MENTIONS) throw invalid('mentions', `at most ${MAX_MENTIONS} logins`);
  const out: Record<string, string> = {};
  for (const [login, user] of entries) {
    if (!LOGIN.test(login)) throw invalid(`mentions.${login}`, 'expected a GitHub login');
    if (user.trim() === '' || user.length > 200) throw invalid(`mentions.${login}`, 'expected a chat user id of 1-200 characters');
    out[login.toLowerCase()] = user.trim();
  }
  return out;
}

function invalid(path: string, message: string): ServiceError {
  return new ServiceError(400, 'invalid_request', 'Invalid request', `${path}: ${message}`, [{ path, message }]);
}

/**
 * A chat channel's URL is its secret (anyone holding it may post there): records show only where it
 * goes (scheme, host, first path segment).
 */
export function shownUrl(format: SubscriptionFormat, url: string): string {
  if (!isChatFormat(format)) return url;
  try {
    const u = new URL(url);
    const first = u.pathname.split('/').filter((p) => p !== '')[0];
    return `${u.protocol}//${u.host}/${first ? `${first}/` : ''}…`;
  } catch {
    return '…';
  }
}

import { isDeepStrictEqual } from 'node:util';
import { closestName } from '../../domain/closest-name.js';
import type { Org } from '../../domain/org.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import { VERDICT_CODES } from '../../domain/verdict/verdict.js';
import { isChatFormat } from '../../domain/webhook-delivery.js';
import { patternIsKnown } from '../../events/event-filter.js';
import type { ChannelFileRules, OutboxStore, WebhookSubscription } from '../../store/outbox-store.js';
import { LOST, retryOnConflict } from '../../store/store.js';
import type { RepoConfigChannel, RepoConfigProblem } from '../repo-settings/repo-config.js';
import { fileRulesFor } from '../../webhooks/fan-out.js';
import { LOGIN } from './chat-rules.js';
import { channelNamed } from './channel-name.js';

/**
 * The chat channels' rules a repository's `.github/mergeq.yml` sets for its own events
 * (docs/notifications.md): the channel, with its secret URL and bot token, is registered through the
 * API or the CLI; the file names it and says which events, verdicts and branches of this repository
 * it is sent, and whom to mention. Other repositories' events are untouched.
 */
export class ChannelFileRulesService {
  constructor(private readonly deps: { store: { outbox: OutboxStore }; clock: { now(): Date } }) {}

  /** What in the file names no usable channel, each on its line (the file is then refused whole). */
  async check(org: Org, repo: RepoRef, channels: readonly RepoConfigChannel[]): Promise<RepoConfigProblem[]> {
    if (channels.length === 0) return [];
    const all = await this.deps.store.outbox.listSubscriptions(org.id);
    const key = repoKey(repo);
    const problems: RepoConfigProblem[] = [];
    channels.forEach((c, i) => {
      const at = (message: string) => problems.push({ line: c.line, message: `channels[${i}].${message}` });
      const found = channelNamed(c.channel, all);
      if (!found) {
        const names = all.filter((s) => isChatFormat(s.format)).flatMap((s) => (s.name ? [s.name] : []));
        const guess = closestName(c.channel, names);
        return at(
          `channel: no chat channel ${c.channel} in this organization${guess ? `, did you mean ${guess}?` : ''} ` +
            `(register it with its URL, a secret, through webhooks/create or mergeq webhook create --name ${c.channel})`,
        );
      }
      if (!isChatFormat(found.format)) return at(`channel: ${c.channel} is a ${found.format} webhook, not a chat channel (slack_blocks or teams)`);
      if (found.repoKey !== null && found.repoKey !== key) return at(`channel: ${c.channel} only takes events of ${found.repoKey}`);
      c.events?.forEach((e, j) => {
        if (!patternIsKnown(e)) at(`events[${j}]: "${e}" names no event type`);
      });
      for (const [login, user] of Object.entries(c.mentions ?? {})) {
        if (!LOGIN.test(login)) at(`mentions.${login}: expected a GitHub login`);
        else if (user.trim() === '') at(`mentions.${login}: expected a chat user id`);
      }
    });
    return problems;
  }

  /**
   * Gives each channel the file names its rules for this repository (`source`: the file at its
   * commit) and takes this repository's rules off the channels it no longer names (`channels` null:
   * the file was removed). Answers what changed, one line each.
   */
  async apply(org: Org, repo: RepoRef, source: string, channels: readonly RepoConfigChannel[] | null): Promise<string[]> {
    const key = repoKey(repo);
    const changes: string[] = [];
    const all = (await this.deps.store.outbox.listSubscriptions(org.id)).filter((s) => isChatFormat(s.format));
    const named = new Set<string>();
    // In the file's order, then the channels it no longer names.
    for (const c of channels ?? []) {
      const s = channelNamed(c.channel, all);
      if (!s || named.has(s.id)) continue;
      named.add(s.id);
      const wanted = rulesOf(c, key, source);
      const current = fileRulesFor(s, key);
      if (current && current.source === source && isDeepStrictEqual(current, wanted)) continue;
      await this.put(s.id, key, wanted);
      const same = current !== undefined && isDeepStrictEqual({ ...current, source }, wanted);
      if (!same) changes.push(`channel ${s.name ?? s.id}: rules for this repository ${current ? 'replaced' : 'set'} (${ruleNames(wanted)})`);
    }
    for (const s of all) {
      if (named.has(s.id) || !fileRulesFor(s, key)) continue;
      await this.put(s.id, key, undefined);
      changes.push(`channel ${s.name ?? s.id}: no longer set by the file`);
    }
    return changes;
  }

  private async put(id: string, key: string, rules: ChannelFileRules | undefined): Promise<void> {
    const { outbox } = this.deps.store;
    await retryOnConflict(`webhook ${id}`, async () => {
      const current: WebhookSubscription | null = await outbox.getSubscription(id);
      if (!current) return;
      const others = (current.fileRules ?? []).filter((r) => r.repoKey !== key);
      const next = rules ? [...others, rules].sort((a, b) => (a.repoKey < b.repoKey ? -1 : 1)) : others;
      const change = { fileRules: next, updatedAt: this.deps.clock.now().toISOString() };
      return (await outbox.updateSubscription(id, { fileRules: current.fileRules }, change)) ? undefined : LOST;
    });
  }
}

function rulesOf(c: RepoConfigChannel, repoKeyOf: string, source: string): ChannelFileRules {
  return {
    repoKey: repoKeyOf,
    source,
    ...(c.events ? { events: [...new Set(c.events)] } : {}),
    ...(c.verdicts ? { verdicts: VERDICT_CODES.filter((v) => c.verdicts!.includes(v)) } : {}),
    ...(c.branches ? { branches: [...new Set(c.branches)] } : {}),
    ...(c.mentions ? { mentions: Object.fromEntries(Object.entries(c.mentions).map(([login, user]) => [login.toLowerCase(), user.trim()])) } : {}),
  };
}

function ruleNames(r: ChannelFileRules): string {
  return (['events', 'verdicts', 'branches', 'mentions'] as const).filter((k) => r[k] !== undefined).join(', ') || 'the channel\'s own rules';
}

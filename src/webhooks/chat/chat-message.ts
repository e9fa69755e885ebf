import type { Verdict } from '../../domain/verdict/verdict.js';
import type { OutboxEvent } from '../../events/event-types.js';
import { describeStack, toStackRecord } from '../../records/stack-record.js';

/** What a chat channel is told of one event, before Slack or Teams shape it (docs/notifications.md). */
export interface ChatMessage {
  /** One line: what happened, to which PR or queue. */
  headline: string;
  /** The verdict's line, or what changed in the queue. */
  summary: string;
  /** What a person acts on: failing tests, the culprit, the cost; at most a few lines. */
  details: string[];
  /** The PR's author, with the chat user it maps to (null: not in the map, named by login). */
  author: { login: string; chatUser: string | null } | null;
  /** The PR's page on the git host, when it has one. */
  link: { title: string; url: string } | null;
  /** Which queue, for the footer. */
  context: string;
}

const ICONS: Record<Verdict['code'], string> = {
  culprit: '❌',
  bystander: '🔁',
  flaky: '🎲',
  infrastructure: '🛠️',
  conflict: '⚔️',
  policy: '📋',
  manual: '✋',
};

/** The message of an event a chat channel was sent (a PR's verdict, or a queue event); `mentions`: login → chat user. */
export function chatMessageOf(event: OutboxEvent, mentions: Readonly<Record<string, string>>): ChatMessage {
  const data = event.data;
  if (data.kind === 'test_case') return { headline: `${event.type} in ${event.repoKey}`, summary: '', details: [], author: null, link: null, context: event.repoKey };
  const { repo, branch } = data.queue;
  const repoName = `${repo.owner}/${repo.name}`;
  const context = `merge queue of ${repoName} · ${branch}`;
  if (data.kind === 'queue') {
    return { headline: `${repoName} · ${branch}: ${queueHeadline(event)}`, summary: queueSummary(event), details: [], author: null, link: null, context };
  }
  const { entry } = data;
  const verdict = entry.history.at(-1)?.verdict ?? null;
  const pr = `${repoName}#${entry.prNumber}`;
  const login = entry.prAuthor;
  return {
    headline: `${verdict ? ICONS[verdict.code] : 'ℹ️'} ${pr} "${entry.prTitle}": ${verdict ? verdict.code : event.type}`,
    summary: verdict?.message ?? entry.reason?.message ?? event.type,
    // A stack member says which unit it is in: its layer and the members tested and landed with it.
    details: [...(verdict ? detailsOf(verdict) : []), ...(entry.stack ? [`stack ${describeStack(toStackRecord(entry.stack, data.stackMembers ?? null))}`] : [])],
    author: login ? { login, chatUser: mentions[login.toLowerCase()] ?? null } : null,
    link: repo.host === 'github.com' ? { title: `Open #${entry.prNumber}`, url: `https://github.com/${repo.owner}/${repo.name}/pull/${entry.prNumber}` } : null,
    context,
  };
}

function detailsOf(verdict: Verdict): string[] {
  switch (verdict.code) {
    case 'culprit': {
      const tests = verdict.evidence.failedTests.slice(0, 5).map((t) => `failing: ${t.name}${t.firstFailureLine ? ` — ${t.firstFailureLine}` : ''}`);
      const more = verdict.evidence.failedTests.length > 5 ? [`… and ${verdict.evidence.failedTests.length - 5} more failing tests`] : [];
      return [...tests, ...more, `isolated by ${verdict.evidence.isolation.method.replace('_', ' ')}`];
    }
    case 'bystander':
      return [`culprit: ${verdict.evidence.culprits.map((c) => `#${c.prNumber}`).join(', ') || 'no longer known'}`, `cost: ${verdict.evidence.cost.runs} run(s), ${verdict.evidence.cost.minutes} CI minute(s)`];
    case 'flaky':
      return verdict.evidence.tests.slice(0, 5).map((t) => `flaky: ${t.name}`);
    case 'infrastructure':
      return verdict.evidence.checks.map((c) => `${c.context}: ${c.state}`);
    default:
      return [];
  }
}

function queueHeadline(event: OutboxEvent): string {
  switch (event.type) {
    case 'queue.frozen':
      return '🧊 frozen';
    case 'queue.unfrozen':
      return '☀️ unfrozen';
    case 'queue.storm_started':
      return '⛈️ storm';
    case 'queue.storm_ended':
      return '🌤️ storm over';
    case 'queue.state_changed':
      return event.data.kind === 'queue' ? `now ${event.data.queue.state}` : 'state changed';
    default:
      return event.type;
  }
}

function queueSummary(event: OutboxEvent): string {
  if (event.data.kind !== 'queue') return '';
  const { queue, previousState } = event.data;
  if (event.type === 'queue.frozen' && queue.freeze) {
    const until = queue.freeze.endsAt ? ` until ${queue.freeze.endsAt}` : '';
    return `frozen by ${queue.freeze.by}${until}: ${queue.freeze.reason}`;
  }
  if (event.type === 'queue.storm_started' && queue.storm) return queue.storm.message;
  if (event.type === 'queue.state_changed') return `${previousState ?? '?'} → ${queue.state}`;
  return event.type;
}

import type { Entry } from '../domain/entry.js';
import type { StatusCheck, TestRun } from '../domain/run.js';
import type { PullRequestComment } from '../githost/githost.js';
import { waitEndsAt, waitingSince } from '../planner/all-admission.js';
import { failingChecks } from '../planner/verdict.js';
import { forgivenAsFlake } from './commit-status.js';
import { verdictCommentLines } from './verdict-comment.js';

/**
 * The hidden first line of a PR's status comment: one comment per queue (target branch), found again
 * by it. A `>` in a branch name would end the HTML comment early, so it is escaped.
 */
export function commentMarker(branch: string): string {
  return `<!-- mergeq:${branch.replaceAll('>', '&gt;')} -->`;
}

/**
 * What decides the comment: a comment is written only when a person must read something (github.md,
 * "Comments") — a failure or removal they did not ask for, a flake forgiven, an `ALL` PR held back —
 * and, once written, kept true as the PR moves on. Null: nothing to say. A moving position is not
 * reported again (nor is a PENDING_FAILURE's reason, or a NOT_READY's note).
 */
export function prCommentKey(entry: Entry): string | null {
  if (entry.state === 'FAILED' || entry.state === 'CANCELLED') {
    if (entry.reason?.code === 'cancelled_by_user' && entry.reported?.comment === undefined) return null;
    return `${entry.state}|${entry.reason?.code ?? ''}|${entry.reason?.message ?? ''}`;
  }
  if (forgivenAsFlake(entry)) return `${entry.state}|flaky_tests|${entry.reason!.message}`;
  if (waitingSince(entry)) return `${entry.state}|all_targets_wait`;
  return entry.reported?.comment === undefined ? null : entry.state;
}

export interface PrCommentContext {
  branch: string;
  /** 1-based place in the queue, for a queued PR. */
  position: number | undefined;
  /** The run that decided the entry (`entry.testRunId`), if the document still holds it. */
  run: TestRun | undefined;
}

/** The comment on a PR for its entry's state: the marker, one line saying where the PR is, and on failure the failing checks. */
export function prCommentFor(entry: Entry, context: PrCommentContext): PullRequestComment {
  const marker = commentMarker(context.branch);
  const lines = [marker, headline(entry, context.position, `the merge queue of ${code(context.branch)}`)];
  const checks = entry.state === 'FAILED' && context.run?.status === 'failed' ? failing(context.run) : [];
  if (checks.length > 0) lines.push('', 'Failing checks:', ...checks.map((c) => `- ${checkLink(c)}`));
  const forgiven = entry.state === 'MERGED' ? lastFlakeForgiven(entry) : null;
  if (forgiven) lines.push('', `A failed run was forgiven as a flake on the way: ${sentence(forgiven)}`);
  lines.push(...verdictCommentLines(entry));
  return { marker, body: lines.join('\n') };
}

function headline(entry: Entry, position: number | undefined, queue: string): string {
  switch (entry.state) {
    case 'NOT_READY': {
      const since = waitingSince(entry);
      if (since) {
        const by = waitEndsAt(since).toISOString().slice(0, 16).replace('T', ' ');
        return `⏳ **Waiting** to join ${queue}: it impacts every target, so it joins when that restarts few of the runs in flight, by ${by} UTC at the latest.`;
      }
      return `⏳ **Waiting** to join ${queue} until it is ready (open, not a draft, mergeable).`;
    }
    case 'PENDING':
      return position === undefined ? `⏳ **Queued** in ${queue}.` : `⏳ **Queued** at position ${position} in ${queue}.`;
    case 'TESTING':
      return `🧪 **Testing** in ${queue}.`;
    case 'TESTS_PASSED':
      return `✅ **Tests passed** in ${queue}: merging in queue order.`;
    case 'PENDING_FAILURE':
      if (forgivenAsFlake(entry)) return `🔁 **Rerunning** in ${queue}: ${sentence(entry.reason!.message)}`;
      return `🔍 **A test run failed** in ${queue}: checking whether this pull request caused it.`;
    case 'MERGED':
      return entry.mergeCommitSha ? `✅ **Merged** by ${queue} as ${entry.mergeCommitSha.slice(0, 7)}.` : `✅ **Merged** by ${queue}.`;
    case 'FAILED':
      return `❌ **Failed** in ${queue}: ${sentence(entry.reason?.message ?? 'failed')}`;
    case 'CANCELLED':
      return `🚫 **Removed** from ${queue}: ${sentence(entry.reason?.message ?? 'cancelled')}`;
  }
}

/** The failing required checks of a run (the ones its failure reason names), with their links. */
function lastFlakeForgiven(entry: Entry): string | null {
  for (let i = entry.history.length - 1; i >= 0; i--) if (entry.history[i]!.reason.code === 'flaky_tests') return entry.history[i]!.reason.message;
  return null;
}

function failing(run: TestRun): StatusCheck[] {
  const names = new Set(failingChecks(run));
  return run.statusChecks.filter((c) => names.has(c.context));
}

/** `[name](url)`, or the name alone without a usable http(s) link. */
function checkLink(check: StatusCheck): string {
  const name = check.context.replace(/[\\[\]`*_<>]/g, (ch) => `\\${ch}`);
  if (check.url === null || !/^https?:\/\//i.test(check.url)) return name;
  const url = check.url.replace(/[\s()<>]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return `[${name}](${url})`;
}

function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

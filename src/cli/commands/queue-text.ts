import type { SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import type { ListedQueue } from '../../service/queue/queue-listing.js';
import type { QueueRecord } from '../../records/queue-record.js';
import { formatTable } from '../format-table.js';

/** What `mergeq queue` and `mergeq pr` print for people (`--json` prints the API's answer instead). */

export function queueListText(queues: ListedQueue[]): string {
  const rows = queues.map((q) => [
    `${q.repo.host}/${q.repo.owner}/${q.repo.name}`,
    q.branch,
    q.state,
    q.mode,
    String(q.depth),
    String(q.runsInFlight),
    String(q.mergedLastHour),
    String(q.failedLastHour),
  ]);
  return formatTable(['REPO', 'BRANCH', 'STATE', 'MODE', 'PRS', 'RUNS', 'MERGED 1H', 'FAILED 1H'], rows);
}

/** The queue's state and every setting, then its pull requests in queue order. */
export function queueText(record: QueueRecord): string {
  const { id: _id, repo, branch, enqueuedPullRequests, ...rest } = record;
  const fields = Object.entries(rest)
    .filter(([key]) => key !== 'page')
    .map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') || '-' : value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value)]);
  const width = Math.max(...fields.map(([key]) => key!.length));
  const head = `Queue ${repo.host}/${repo.owner}/${repo.name} ${branch}\n${fields.map(([k, v]) => `  ${k!.padEnd(width)}  ${v}\n`).join('')}`;
  if (enqueuedPullRequests.length === 0) return `${head}No pull requests in the queue.\n`;
  const rows = enqueuedPullRequests.map((p) => [
    p.position === null ? '-' : String(p.position),
    `#${p.prNumber}`,
    p.state,
    p.priorityName,
    p.estimatedMergeAt ?? '-',
    p.prAuthor,
    p.prTitle,
  ]);
  return `${head}${plural(enqueuedPullRequests.length, 'pull request')}:\n${formatTable(['POS', 'PR', 'STATE', 'PRIORITY', 'ESTIMATED MERGE', 'AUTHOR', 'TITLE'], rows)}`;
}

/** The state of a submission, why it is there, and its history. */
export function pullRequestText(pr: SubmittedPullRequestRecord): string {
  const where = pr.position === null ? '' : ` (position ${pr.position})`;
  const lines = [
    `PR #${pr.prNumber} ${pr.prTitle ? `"${pr.prTitle}" ` : ''}is ${pr.state}${where}`,
    pr.reason ? `  reason: ${pr.reason.message} (${pr.reason.code})` : null,
    `  priority: ${pr.priorityName} (${pr.priorityValue})${pr.noBatch ? ', never batched' : ''}`,
    pr.testRunId ? `  test run: ${pr.testRunId}` : null,
    pr.estimatedMergeAt ? `  estimated merge: ${pr.estimatedMergeAt}` : pr.estimateReason ? `  no merge estimate: ${pr.estimateReason.message}` : null,
  ].filter((l): l is string => l !== null);
  const history = formatTable(
    ['AT', 'STATE', 'REASON'],
    pr.history.map((h) => [h.at, h.state, h.reason.message]),
  );
  return `${lines.join('\n')}\nHistory:\n${history}`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

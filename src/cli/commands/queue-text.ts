import type { SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { describeStack, stackName } from '../../records/stack-record.js';
import type { ListedQueue } from '../../service/queue/queue-listing.js';
import type { QueueRecord } from '../../records/queue-record.js';
import { describeQueueHold } from '../../records/merge-hold-record.js';
import { formatTable } from '../format-table.js';

/** What `mergeq queue` and `mergeq pr` print for people (`--json` prints the API's answer instead). */

export function queueListText(queues: ListedQueue[]): string {
  const rows = queues.map((q) => [
    `${q.repo.host}/${q.repo.owner}/${q.repo.name}`,
    q.branch,
    // A frozen queue is not plainly "running": what holds it comes beside its state.
    q.mergeHold ? `${q.state}, held` : q.state,
    q.mode,
    String(q.depth),
    String(q.runsInFlight),
    String(q.mergedLastHour),
    String(q.failedLastHour),
    q.mergeHold?.message ?? '-',
  ]);
  return formatTable(['REPO', 'BRANCH', 'STATE', 'MODE', 'PRS', 'RUNS', 'MERGED 1H', 'FAILED 1H', 'HOLD'], rows);
}

/** Why a PR is where it is, in a few words: what holds it, what keeps it not ready, else its reason. */
function whyOf(p: QueueRecord['enqueuedPullRequests'][number]): string {
  if (p.mergeHold) return `held: ${p.mergeHold.message}`;
  if (p.state === 'NOT_READY' && p.readinessNote) return `not ready: ${p.readinessNote}`;
  return p.reason?.message ?? '-';
}

/** The estimate as people read it: the time, or why there is none. */
function estimateOf(p: Pick<QueueRecord['enqueuedPullRequests'][number], 'estimatedMergeAt' | 'estimateReason' | 'mergeHold'>): string | null {
  if (p.estimatedMergeAt) return p.mergeHold ? `${p.estimatedMergeAt} (after the hold ends)` : p.estimatedMergeAt;
  return p.estimateReason?.code === 'queue_held' ? 'held' : null;
}

/** The queue's state and every setting, then its pull requests in queue order. */
export function queueText(record: QueueRecord): string {
  const { id: _id, repo, branch, enqueuedPullRequests, ...rest } = record;
  const fields = Object.entries(rest)
    .filter(([key]) => key !== 'page')
    .map(([key, value]) => [key, Array.isArray(value) ? value.join(', ') || '-' : value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value)]);
  const width = Math.max(...fields.map(([key]) => key!.length));
  const hold = describeQueueHold(record);
  const storm = record.storm ? `\n  ${record.storm.message} (since ${record.storm.since})` : '';
  const title = `Queue ${repo.host}/${repo.owner}/${repo.name} ${branch}: ${record.state}${hold ? `, held: ${hold}` : ''}${storm}`;
  const head = `${title}\n${fields.map(([k, v]) => `  ${k!.padEnd(width)}  ${v}\n`).join('')}`;
  if (enqueuedPullRequests.length === 0) return `${head}No pull requests in the queue.\n`;
  // A STACK column only where a stack is queued: `#7 (native) 2/3`, the member's layer of its unit.
  const stacked = enqueuedPullRequests.some((p) => p.stack);
  const rows = enqueuedPullRequests.map((p) => [
    p.position === null ? '-' : String(p.position),
    `#${p.prNumber}`,
    ...(stacked ? [p.stack ? `${stackName(p.stack)} ${p.stack.position}/${p.stack.size ?? '?'}` : '-'] : []),
    p.state,
    p.priorityName,
    estimateOf(p) ?? '-',
    whyOf(p),
    p.prAuthor || '-',
    p.prTitle,
  ]);
  const headers = ['POS', 'PR', ...(stacked ? ['STACK'] : []), 'STATE', 'PRIORITY', 'ESTIMATED MERGE', 'WHY', 'AUTHOR', 'TITLE'];
  return `${head}${plural(enqueuedPullRequests.length, 'pull request')}:\n${formatTable(headers, rows)}`;
}

/** The state of a submission, why it is there, and its history. */
export function pullRequestText(pr: SubmittedPullRequestRecord): string {
  const where = pr.position === null ? '' : ` (position ${pr.position})`;
  const lines = [
    `PR #${pr.prNumber} ${pr.prTitle ? `"${pr.prTitle}" ` : ''}is ${pr.state}${where}`,
    pr.state === 'NOT_READY' && pr.readiness.note ? `  not ready: ${pr.readiness.note}` : null,
    pr.mergeHold ? `  held: ${pr.mergeHold.message}` : null,
    pr.reason ? `  reason: ${pr.reason.message} (${pr.reason.code})` : null,
    pr.stack ? `  stack: ${describeStack(pr.stack)} (tested and landed as one unit)` : null,
    `  priority: ${pr.priorityName} (${pr.priorityValue})${pr.noBatch ? ', never batched' : ''}`,
    pr.testRunId ? `  test run: ${pr.testRunId}` : null,
    pr.estimatedMergeAt ? `  estimated merge: ${estimateOf(pr)}` : pr.estimateReason ? `  no merge estimate: ${pr.estimateReason.message}` : null,
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

import { isActive } from '../domain/states.js';
import { ownerKey } from '../domain/repo.js';
import type { EventType, OutboxEvent, QueueHeader } from '../events/event-types.js';
import { toSubmittedPullRequestRecord } from '../records/pull-request-record.js';
import { describeStack, toStackRecord } from '../records/stack-record.js';
import { toQueueRecord } from '../records/queue-record.js';

/** The JSON body of a delivery in the `standard` format. */
export interface EventPayload {
  id: string;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
}

/**
 * The records the API would answer, as they were at the event: the queue record without its
 * entries, the submitted-PR record (with `reason`) plus the failing checks and tests of the run that
 * decided it.
 */
export function eventPayload(event: OutboxEvent): EventPayload {
  const { data } = event;
  const base = { id: event.id, type: event.type, timestamp: event.at };
  switch (data.kind) {
    case 'pull_request': {
      const record = toSubmittedPullRequestRecord(data.entry, null);
      if (data.entry.stack && data.stackMembers) record.stack = toStackRecord(data.entry.stack, data.stackMembers);
      return {
        ...base,
        data: {
          queue: queueRecordOf(data.queue, event.at),
          pullRequest: {
            ...record,
            position: data.position,
            isCurrentlySubmittedToQueue: isActive(data.entry.state),
            failingChecks: data.failingChecks,
            failedTests: data.failedTests,
          },
        },
      };
    }
    case 'queue':
      return { ...base, data: { queue: queueRecordOf(data.queue, event.at), previousState: data.previousState } };
    case 'test_case': {
      const [host = '', owner = '', name = ''] = event.repoKey.split('/');
      return { ...base, data: { repo: { host, owner, name }, testCase: data.testCase, change: data.change } };
    }
  }
}

function queueRecordOf(header: QueueHeader, at: string) {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { enqueuedPullRequests, ...record } = toQueueRecord({ ...header, entries: [], units: [], runs: [] }, new Date(at));
  return record;
}

/** Event types a `slack` subscription is sent; the others are left out. */
export const SLACK_EVENT_TYPES: ReadonlySet<EventType> = new Set<EventType>(['pull_request.merged', 'pull_request.failed', 'pull_request.cancelled']);

/** The body of a Slack-compatible incoming webhook: one short line. */
export function slackMessage(event: OutboxEvent): { text: string } {
  if (event.data.kind !== 'pull_request') return { text: `${event.type} in ${event.repoKey}` };
  const { entry, queue, failingChecks } = event.data;
  const pr = `${queue.repo.owner}/${queue.repo.name}#${entry.prNumber}`;
  const title = `"${entry.prTitle}"${entry.stack ? ` (stack ${describeStack(toStackRecord(entry.stack, event.data.stackMembers ?? null))})` : ''}`;
  const why = entry.reason ? `: ${entry.reason.message}` : '';
  switch (event.type) {
    case 'pull_request.merged':
      return { text: `:white_check_mark: ${pr} ${title} merged into ${queue.branch}` };
    case 'pull_request.failed': {
      const checks = failingChecks.length > 0 ? ` (failing: ${failingChecks.map((c) => c.context).join(', ')})` : '';
      return { text: `:x: ${pr} ${title} failed in the ${queue.branch} merge queue${why}${checks}` };
    }
    default:
      return { text: `:no_entry_sign: ${pr} ${title} was removed from the ${queue.branch} merge queue${why}` };
  }
}

/** The organization owner key of a repository key (`host/owner/name` → `host/owner`). */
export function ownerKeyOfRepo(repoKey: string): string {
  const [host = '', owner = ''] = repoKey.split('/');
  return ownerKey(host, owner);
}

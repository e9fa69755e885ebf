import type { Entry } from '../domain/entry.js';
import type { TestCaseEvent } from '../domain/flaky.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TestCase } from '../domain/quarantine.js';
import type { FailedTest, StatusCheck } from '../domain/run.js';
import type { QueueState } from '../domain/states.js';

export const PULL_REQUEST_EVENT_TYPES = [
  'pull_request.submitted',
  'pull_request.ready',
  'pull_request.testing',
  'pull_request.tests_passed',
  'pull_request.merged',
  'pull_request.failed',
  'pull_request.cancelled',
  'pull_request.pending_failure',
  'pull_request.restarted',
] as const;
export const QUEUE_EVENT_TYPES = ['queue.created', 'queue.updated', 'queue.deleted', 'queue.state_changed', 'queue.frozen', 'queue.unfrozen', 'queue.storm_started', 'queue.storm_ended'] as const;
export const TEST_CASE_EVENT_TYPES = ['test_case.status_changed', 'test_case.quarantine_changed'] as const;
export const EVENT_TYPES = [...PULL_REQUEST_EVENT_TYPES, ...QUEUE_EVENT_TYPES, ...TEST_CASE_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** A queue document without its entries, units, runs, lineage and storm ledger: what a queue event carries. */
export type QueueHeader = Omit<QueueDoc, 'entries' | 'units' | 'runs' | 'targetLineage' | 'stormWatch'>;

export type EventData =
  | {
      kind: 'pull_request';
      queue: QueueHeader;
      /** The entry as it was at this transition (state, reason and history up to it). */
      entry: Entry;
      /** 1-based place in queue order after the commit; null when not in line. */
      position: number | null;
      /** For failed and pending_failure: the checks of the deciding run that did not succeed. */
      failingChecks: StatusCheck[];
      failedTests: FailedTest[];
      /** A stack member's stack in the queue at this commit, bottom up (docs/stacks.md); absent for a PR alone. */
      stackMembers?: number[];
    }
  | { kind: 'queue'; queue: QueueHeader; previousState: QueueState | null }
  | { kind: 'test_case'; change: TestCaseEvent; testCase: TestCase | null };

/**
 * One event in the durable outbox, written in the same store commit as the change it tells of. Its
 * id follows from what happened (queue, entry, transition index), so a retried commit cannot make a
 * second one.
 */
export interface OutboxEvent {
  id: string;
  type: EventType;
  at: string;
  /** The queue's organization; null for a test-case event (its repository owner's organization). */
  orgId: string | null;
  repoKey: string;
  branch: string | null;
  /** Events with one key are delivered in order: one PR of one queue, one queue, one test case. */
  orderKey: string;
  data: EventData;
}

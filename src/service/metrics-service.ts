import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TestRun } from '../domain/run.js';
import type { SubscriptionFormat } from '../domain/webhook-delivery.js';
import type { OutboxStore } from '../store/outbox-store.js';
import type { OrgStore, QueueStore, TestCaseCounts, TestCaseStore } from '../store/store.js';

/** What the metrics of one queue are computed from. */
export interface QueueActivity {
  queue: QueueDoc;
  /** The document's entries plus the archived entries that ended since the window start; each id once. */
  entries: Entry[];
  /** The document's runs plus the archived runs that finished since the window start; each id once. */
  runs: TestRun[];
}

/** Whether a webhook or chat channel delivers (mq_webhook_failing_seconds). */
export interface WebhookHealth {
  id: string;
  format: SubscriptionFormat;
  enabled: boolean;
  failingSince: string | null;
}

/** Flaky, broken and quarantined test counts of one repository (its `repoKey`). */
export type RepoTestCaseCounts = TestCaseCounts;

/** What the Prometheus metrics read: queues with their recent history, and test case counts. */
export class MetricsService {
  constructor(private readonly store: { queues: QueueStore; orgs: OrgStore; tests: TestCaseStore; outbox: Pick<OutboxStore, 'listSubscriptions'> }) {}

  /** The organization's webhooks and chat channels (of one repository, or of all of it), with whether they deliver. */
  async webhookHealth(orgId: string, filter: { repoKey?: string }): Promise<WebhookHealth[]> {
    const subscriptions = await this.store.outbox.listSubscriptions(orgId);
    return subscriptions
      .filter((s) => filter.repoKey === undefined || s.repoKey === null || s.repoKey === filter.repoKey)
      .map((s) => ({ id: s.id, format: s.format, enabled: s.enabled, failingSince: s.failingSince }));
  }

  /**
   * The queues of an organization (optionally one repository) with their recent history, ordered by
   * repository then branch. An entry or run is either still in its queue document or already
   * archived; should a retried commit leave it in both, the document's copy wins so nothing is
   * counted twice.
   */
  async queueActivity(orgId: string, filter: { repoKey?: string }, since: string): Promise<QueueActivity[]> {
    const store = this.store;
    const queues = await store.queues.listQueues(filter.repoKey === undefined ? { orgId } : { orgId, repoKey: filter.repoKey });
    queues.sort((a, b) => compare(a.repoKey, b.repoKey) || compare(a.branch, b.branch));
    if (queues.length === 0) return [];

    const archivedEntries = await store.queues.archivedEntriesEndedSince(
      queues.map((q) => q.id),
      since,
    );
    const archivedRunsPerQueue = await Promise.all(queues.map((q) => store.queues.archivedRuns(q.id, { finishedSince: since })));

    return queues.map((queue, i) => ({
      queue,
      entries: unionById(
        queue.entries,
        archivedEntries.filter((e) => e.queueId === queue.id),
      ),
      runs: unionById(queue.runs, archivedRunsPerQueue[i] ?? []),
    }));
  }

  /** Flaky, broken and quarantined test counts of the organization's repositories; `[]` without it. */
  async testCaseCounts(orgId: string): Promise<RepoTestCaseCounts[]> {
    const org = await this.store.orgs.getOrgById(orgId);
    return org ? this.store.tests.testCaseCounts(org.owners) : [];
  }
}

function unionById<T extends { id: string }>(current: T[], archived: T[]): T[] {
  const seen = new Set(current.map((x) => x.id));
  return [...current, ...archived.filter((x) => !seen.has(x.id))];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { Clock } from '../../domain/clock.js';
import type { Entry } from '../../domain/entry.js';
import { ciHistoryOf, estimateMergeTimes } from '../../domain/eta.js';
import type { Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import { repoKey } from '../../domain/repo.js';
import { isInFlight, type TestRun } from '../../domain/run.js';
import type { QueueSettings } from '../../domain/settings.js';
import { MergeEstimates } from '../../queue-docs/merge-estimates.js';
import { toSubmittedPullRequestRecord, type SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { toQueueRecordPage, type QueueRecord } from '../../records/queue-record.js';
import { mergeHoldRecord, type MergeHoldRecord } from '../../records/merge-hold-record.js';
import { toTestRunRecord, type TestRunRecord } from '../../records/test-run-record.js';
import type { QueueStore, ServerStore } from '../../store/store.js';
import { notFound } from '../errors.js';
import type { PullRequestRefInput, QueueRefInput, TestingDetailsInput } from './queue-inputs.js';
import { MAX_QUEUE_PAGE_SIZE, MIN_QUEUE_PAGE_SIZE, Pages, type PageInput, type PageJson } from '../pages.js';
import { QueuePageMemo } from './queue-page-memo.js';
import { assertOwnsRepo } from '../access/tenancy.js';
import { latestEntryOf } from './latest-entry.js';

/**
 * The queue service's reads — a queue with a page of its PRs, one PR, runs, a comment command's
 * settings — and its ETA policy: which answers walk the queue for estimates. Tenancy is checked first.
 */
export class QueueReads {
  private readonly pages: Pages;
  private readonly mergeEstimates: MergeEstimates;
  private readonly queuePages = new QueuePageMemo<QueueRecord & { page: PageJson }>();

  constructor(
    protected readonly store: { queues: QueueStore; server: ServerStore },
    protected readonly clock: Clock,
  ) {
    this.pages = new Pages(store.server, { min: MIN_QUEUE_PAGE_SIZE, max: MAX_QUEUE_PAGE_SIZE });
    this.mergeEstimates = new MergeEstimates(store.queues);
  }

  /** The queue record with one page of its enqueued pull requests (the first 1,000 by default). */
  async getQueue(org: Org, input: QueueRefInput & { page?: PageInput }): Promise<QueueRecord & { page: PageJson }> {
    const queue = await this.loadQueue(org, input);
    const page = input.page ?? { pageSize: MAX_QUEUE_PAGE_SIZE, pageToken: '' };
    const query = { repoKey: queue.repoKey, pageSize: page.pageSize, scope: `queue:${queue.branch}` };
    const pageIndex = await this.pages.pageIndex(query, page);
    const estimates = await this.estimates(queue);
    return this.queuePages.get(queue, estimates, `${pageIndex}/${page.pageSize}`, async () => {
      const offset = Math.min(pageIndex * page.pageSize, Number.MAX_SAFE_INTEGER);
      const { record, total } = toQueueRecordPage(queue, this.clock.now(), estimates, offset, page.pageSize);
      return { ...record, page: await this.pages.page(query, pageIndex, total) };
    });
  }

  /** What a comment command needs of its queue: the queue document's settings, without a page of records or ETAs. */
  async commandSettings(org: Org, input: QueueRefInput): Promise<Pick<QueueSettings, 'commandsEnabled' | 'statusCheckEnabled'> & MergeHoldRecord> {
    const queue = await this.loadQueue(org, input);
    const { commandsEnabled, statusCheckEnabled } = queue.settings;
    return { commandsEnabled, statusCheckEnabled, ...mergeHoldRecord(queue, this.clock.now()) };
  }

  async getSubmittedPullRequest(org: Org, input: PullRequestRefInput): Promise<SubmittedPullRequestRecord> {
    const queue = await this.loadQueue(org, input);
    const latest = await this.latestEntry(queue, input.pr.number);
    if (!latest) throw notFound.pullRequest(input.pr.number);
    return toSubmittedPullRequestRecord(latest, queue, await this.estimates(queue));
  }

  /** One run (`testRunId`), the runs that include a PR (`pr`), or, without a filter, the runs in flight. */
  async getMergeQueueTestingDetails(org: Org, input: TestingDetailsInput): Promise<{ testRuns: TestRunRecord[] }> {
    const queue = await this.loadQueue(org, input);
    const { testRunId } = input;
    const prNumber = input.pr?.number;
    if (testRunId === undefined && prNumber === undefined) {
      const inFlight = newestFirst(queue.runs.filter(isInFlight));
      const entries = await this.entriesOf(queue, inFlight);
      return { testRuns: inFlight.map((r) => toTestRunRecord(r, entries)) };
    }
    const matches = (run: QueueDoc['runs'][number]) =>
      (testRunId === undefined || run.id === testRunId) && (prNumber === undefined || run.prs.some((p) => p.prNumber === prNumber));
    const live = newestFirst(queue.runs.filter(matches));
    const archived = await this.store.queues.archivedRuns(queue.id, {
      ...(testRunId === undefined ? {} : { runId: testRunId }),
      ...(prNumber === undefined ? {} : { prNumber }),
    });
    const liveIds = new Set(live.map((r) => r.id));
    const runs = [...live, ...archived.filter((r) => matches(r) && !liveIds.has(r.id))];
    const entries = await this.entriesOf(queue, runs);
    return { testRuns: runs.map((r) => toTestRunRecord(r, entries)) };
  }

  /** The entries of the PRs the runs tested, by id: the document's, then each PR's latest archived one. */
  private async entriesOf(queue: QueueDoc, runs: readonly TestRun[]): Promise<Map<string, Entry>> {
    const wanted = new Map<string, number>();
    for (const run of runs) for (const p of run.prs) wanted.set(p.entryId, p.prNumber);
    const found = new Map<string, Entry>();
    for (const e of queue.entries) if (wanted.has(e.id)) found.set(e.id, e);
    const missing = new Set([...wanted].filter(([id]) => !found.has(id)).map(([, n]) => n));
    for (const n of missing) {
      const archived = await this.store.queues.latestArchivedEntry(queue.id, n);
      if (archived && wanted.has(archived.id)) found.set(archived.id, archived);
    }
    return found;
  }

  /** The ETA of each active entry (src/domain/eta.ts). */
  protected estimates(queue: QueueDoc) {
    return this.mergeEstimates.of(queue, this.clock.now());
  }

  /**
   * The ETA of one entry. One that is not ready, or any in a paused queue, has none whatever the rest
   * of the queue holds: then the queue is not walked (submit at depth).
   */
  protected estimatesFor(queue: QueueDoc, entry: Entry) {
    if (entry.state === 'NOT_READY' || queue.state === 'paused' || queue.state === 'switching_modes') {
      return Promise.resolve(estimateMergeTimes({ ...queue, entries: [entry] }, ciHistoryOf([]), this.clock.now()));
    }
    return this.estimates(queue);
  }

  protected keyOf(org: Org, input: QueueRefInput): { repoKey: string; branch: string } {
    assertOwnsRepo(org, input.repo);
    return { repoKey: repoKey(input.repo), branch: input.targetBranch };
  }

  protected async loadQueue(org: Org, input: QueueRefInput): Promise<QueueDoc> {
    const key = this.keyOf(org, input);
    const queue = await this.store.queues.getQueue(key.repoKey, key.branch);
    if (!queue) throw notFound.queue(key.repoKey, key.branch);
    return queue;
  }

  /** The PR's latest entry: the active one, else the most recent ended one (in the document or archived). */
  protected latestEntry(queue: QueueDoc, prNumber: number): Promise<Entry | null> {
    return latestEntryOf(this.store.queues, queue, prNumber);
  }

}

function newestFirst<T extends { createdAt: string }>(runs: T[]): T[] {
  return [...runs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

import { randomUUID } from 'node:crypto';
import { activeEntryFor, cancelEntry, changeSettings, recordImpactedTargets, restartEntry, submitEntry } from '../planner/index.js';
import type { Entry } from '../domain/entry.js';
import { ciHistoryOf, estimateMergeTimes } from '../domain/eta.js';
import { InvalidStateError } from '../domain/errors.js';
import type { Org } from '../domain/org.js';
import { resolvePriority } from '../domain/priority.js';
import type { QueueDoc } from '../domain/queue.js';
import { reason } from '../domain/reasons.js';
import { TARGET_BYTES_PER_REPO } from '../domain/retention.js';
import { repoKey } from '../domain/repo.js';
import { defaultSettings, type QueueSettings } from '../domain/settings.js';
import { isActive } from '../domain/states.js';
import { describeTargets } from '../domain/targets.js';
import type { Clock } from '../domain/clock.js';
import type { GitHost } from '../githost/githost.js';
import { ConflictError } from '../store/errors.js';
import type { QueueStore, ServerStore, TargetStore } from '../store/store.js';
import { invalidState, notFound } from './errors.js';
import { readPullRequestFacts, type PullRequestFacts } from './pull-request-facts.js';
import { toSubmittedPullRequestRecord, type SubmittedPullRequestRecord } from './pull-request-record.js';
import { queueErrors } from './queue-errors.js';
import type {
  CreateQueueInput,
  PullRequestRefInput,
  QueueRefInput,
  QueueSettingsPatch,
  SetImpactedTargetsInput,
  SubmitPullRequestInput,
  TestingDetailsInput,
  UpdateQueueInput,
} from './queue-inputs.js';
import { toQueueRecord, toQueueRecordPage, type QueueRecord } from './queue-record.js';
import { MAX_QUEUE_PAGE_SIZE, MIN_QUEUE_PAGE_SIZE, Pages, type PageInput, type PageJson } from './pages.js';
import { MergeEstimates } from '../engine/merge-estimates.js';
import { QueueDocWriter } from './queue-doc-writer.js';
import { QueuePageMemo } from './queue-page-memo.js';
import { queueEvents } from '../events/queue-events.js';
import { assertSettingsInBounds } from './settings-bounds.js';
import { assertOwnsRepo } from './tenancy.js';
import { isInFlight, toTestRunRecord, type TestRunRecord } from './test-run-record.js';

/** Schedules a reconcile of a queue (the engine). Called after every change of a queue. */
export interface QueueNotifier {
  notify(queueId: string): void;
  /** A PR head's target list was replaced: drop any copy of the old one (the engine caches lists). */
  forgetImpactedTargets?(repoKey: string, prNumber: number, sha: string): void;
  /** Read a NOT_READY entry's PR from the git host at the next reconcile, not at the next poll, and reconcile. */
  recheckPullRequest?(queueId: string, entryId: string): void;
}

export interface QueueServiceDeps {
  store: { queues: QueueStore; targets: TargetStore; server: ServerStore };
  gitHost: GitHost;
  clock: Clock;
  notifier: QueueNotifier;
  /** Ids of new queues and entries; random UUIDs unless a test fixes them. */
  newId?: () => string;
}

export interface SetImpactedTargetsRecord {
  prNumber: number;
  prSha: string;
  impactedTargets: { all: boolean; count: number };
}

const SETTING_KEYS = Object.keys(defaultSettings()) as (keyof QueueSettings)[];

/**
 * The queue operations, used by every door (REST API, GitHub App, CLI). Each checks tenancy first,
 * records what was asked in the queue document through the pure changes of src/planner/changes/,
 * and leaves the consequences (runs, merges) to the engine, which it notifies.
 */
export class QueueService {
  private readonly store: QueueServiceDeps['store'];
  private readonly gitHost: GitHost;
  private readonly clock: Clock;
  private readonly notifier: QueueNotifier;
  private readonly newId: () => string;
  private readonly writer: QueueDocWriter;
  private readonly pages: Pages;
  private readonly mergeEstimates: MergeEstimates;
  private readonly queuePages = new QueuePageMemo<QueueRecord & { page: PageJson }>();

  constructor(deps: QueueServiceDeps) {
    this.pages = new Pages(deps.store.server, { min: MIN_QUEUE_PAGE_SIZE, max: MAX_QUEUE_PAGE_SIZE });
    this.mergeEstimates = new MergeEstimates(deps.store.queues);
    this.writer = new QueueDocWriter(deps.store, () => deps.clock.now());
    this.store = deps.store;
    this.gitHost = deps.gitHost;
    this.clock = deps.clock;
    this.notifier = deps.notifier;
    this.newId = deps.newId ?? randomUUID;
  }

  async submitPullRequest(org: Org, input: SubmitPullRequestInput): Promise<SubmittedPullRequestRecord> {
    const key = this.keyOf(org, input);
    const prNumber = input.pr.number;
    const priority = input.priority === undefined ? null : resolvePriority(input.priority);
    const entryId = this.newId();
    const readFacts = (q: QueueDoc) => readPullRequestFacts({ gitHost: this.gitHost, store: this.store }, q, prNumber);

    // The git host is asked only for a new entry (a re-submit changes priority and noBatch only),
    // and before the queue's write lock is taken, so a slow host does not hold up other writers.
    const before = await this.store.queues.getQueue(key.repoKey, key.branch);
    if (!before) throw notFound.queue(key.repoKey, key.branch);
    assertAccepting(before);
    const activeBefore = activeEntryFor(before, prNumber);
    let fetched: PullRequestFacts | null = activeBefore ? null : await readFacts(before);

    const { queue, result: entry, changed } = await this.writer.update(
      key,
      async (current) => {
        assertAccepting(current);
        const active = current === before ? activeBefore : activeEntryFor(current, prNumber);
        const facts = active ? factsOf(active) : (fetched ??= await readFacts(current));
        const submitted = submitEntry(
          current,
          { entryId, prNumber, priority, noBatch: input.noBatch ?? null, ...facts },
          this.clock.now(),
        );
        if (active && sameEntry(active, submitted.entry)) return { unchanged: true, result: active };
        return { queue: submitted.queue, result: submitted.entry };
      },
      before,
    );
    // Submitting again is how a user says "it is ready now": read it again at once, not at the next poll.
    if (entry.state === 'NOT_READY' && !fetched && this.notifier.recheckPullRequest) this.notifier.recheckPullRequest(queue.id, entry.id);
    else if (changed) this.notifier.notify(queue.id);
    // The stored document may hold later changes of the same batch (queue-doc-writer.ts): answer with the PR as stored.
    const activeNow = activeEntryFor(queue, prNumber);
    const stored = activeNow?.id === entry.id ? activeNow : entryIn(queue, entry.id);
    return toSubmittedPullRequestRecord(stored, queue, await this.estimatesFor(queue, stored));
  }

  async cancelPullRequest(org: Org, input: PullRequestRefInput): Promise<SubmittedPullRequestRecord> {
    const key = this.keyOf(org, input);
    const prNumber = input.pr.number;
    const why = reason('cancelled_by_user', 'cancelled by a user');
    const { queue, result: id, changed } = await this.writer.update(key, (current) => {
      const active = activeEntryFor(current, prNumber);
      if (!active) return { unchanged: true, result: null };
      return { queue: asServiceError(() => cancelEntry(current, active.id, why, this.clock.now())), result: active.id };
    });
    if (id !== null) {
      if (changed) this.notifier.notify(queue.id);
      return toSubmittedPullRequestRecord(entryIn(queue, id), queue, await this.estimates(queue));
    }
    const latest = await this.latestEntry(queue, prNumber);
    if (!latest) throw notFound.pullRequest(prNumber);
    if (latest.state !== 'CANCELLED') throw invalidState(`pull request #${prNumber} is ${latest.state} and cannot be cancelled`);
    return toSubmittedPullRequestRecord(latest, queue);
  }

  async restartTestsOnPullRequest(org: Org, input: PullRequestRefInput): Promise<SubmittedPullRequestRecord> {
    const key = this.keyOf(org, input);
    const prNumber = input.pr.number;
    const { queue, result: id } = await this.writer.update(key, (current) => {
      const active = activeEntryFor(current, prNumber);
      if (!active) return { unchanged: true, result: null };
      return { queue: asServiceError(() => restartEntry(current, active.id, this.clock.now())), result: active.id };
    });
    if (id === null) {
      const latest = await this.latestEntry(queue, prNumber);
      if (!latest) throw notFound.pullRequest(prNumber);
      throw invalidState(`pull request #${prNumber} is ${latest.state}; only a pull request in the queue can be restarted`);
    }
    this.notifier.notify(queue.id);
    return toSubmittedPullRequestRecord(entryIn(queue, id), queue, await this.estimates(queue));
  }

  async getSubmittedPullRequest(org: Org, input: PullRequestRefInput): Promise<SubmittedPullRequestRecord> {
    const queue = await this.loadQueue(org, input);
    const latest = await this.latestEntry(queue, input.pr.number);
    if (!latest) throw notFound.pullRequest(input.pr.number);
    return toSubmittedPullRequestRecord(latest, queue, await this.estimates(queue));
  }

  /**
   * Stores the targets of one PR head. May come before the PR is submitted; when the active entry is
   * at that head, it gains `hasImpactedTargets` and the engine re-plans with the new targets.
   */
  async setImpactedTargets(org: Org, input: SetImpactedTargetsInput): Promise<SetImpactedTargetsRecord> {
    const queue = await this.loadQueue(org, input);
    const { number: prNumber, sha } = input.pr;
    await this.store.targets.putImpactedTargets(queue.repoKey, prNumber, sha, input.impactedTargets, {
      at: this.clock.now().toISOString(),
      maxBytesPerRepo: TARGET_BYTES_PER_REPO,
    });
    this.notifier.forgetImpactedTargets?.(queue.repoKey, prNumber, sha);

    const atThisHead = (q: QueueDoc) => {
      const active = activeEntryFor(q, prNumber);
      return active && active.prSha === sha ? active : undefined;
    };
    if (atThisHead(queue)) {
      const { queue: updated } = await this.writer.update({ repoKey: queue.repoKey, branch: queue.branch }, (current) => {
        const marked = recordImpactedTargets(current, prNumber, sha);
        return marked === current ? { unchanged: true, result: null } : { queue: marked, result: null };
      });
      this.notifier.notify(updated.id);
    }
    return { prNumber, prSha: sha, impactedTargets: describeTargets(input.impactedTargets) };
  }

  /** One run (`testRunId`), the runs that include a PR (`pr`), or, without a filter, the runs in flight. */
  async getMergeQueueTestingDetails(org: Org, input: TestingDetailsInput): Promise<{ testRuns: TestRunRecord[] }> {
    const queue = await this.loadQueue(org, input);
    const { testRunId } = input;
    const prNumber = input.pr?.number;
    if (testRunId === undefined && prNumber === undefined) {
      return { testRuns: newestFirst(queue.runs.filter(isInFlight)).map(toTestRunRecord) };
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
    return { testRuns: runs.map(toTestRunRecord) };
  }

  async createQueue(org: Org, input: CreateQueueInput): Promise<QueueRecord> {
    assertOwnsRepo(org, input.repo);
    const patch = settingsPatchOf(input);
    assertSettingsInBounds(patch);
    const now = this.clock.now().toISOString();
    const queue: QueueDoc = {
      id: this.newId(),
      orgId: org.id,
      repo: { host: input.repo.host, owner: input.repo.owner, name: input.repo.name },
      repoKey: repoKey(input.repo),
      branch: input.targetBranch,
      state: input.state ?? 'running',
      switching: null,
      settings: defaultSettings(patch),
      createdAt: now,
      updatedAt: now,
      version: 0,
      nextSeq: 1,
      targetSha: null,
      entries: [],
      units: [],
      runs: [],
    };
    try {
      await this.store.queues.insertQueue(queue, queueEvents(null, queue, now));
    } catch (err) {
      if (err instanceof ConflictError) throw queueErrors.exists(input.targetBranch);
      throw err;
    }
    this.notifier.notify(queue.id);
    return toQueueRecord(queue, await this.estimates(queue));
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
      const { record, total } = toQueueRecordPage(queue, estimates, offset, page.pageSize);
      return { ...record, page: await this.pages.page(query, pageIndex, total) };
    });
  }

  /** Omitted settings stay unchanged; a mode change goes through `switching_modes` when runs are in flight. */
  async updateQueue(org: Org, input: UpdateQueueInput): Promise<QueueRecord> {
    const key = this.keyOf(org, input);
    const patch = settingsPatchOf(input);
    assertSettingsInBounds(patch);
    if (Object.keys(patch).length === 0 && input.state === undefined) {
      const unchanged = await this.loadQueue(org, input);
      return toQueueRecord(unchanged, await this.estimates(unchanged));
    }
    const { queue } = await this.writer.update(key, (current) => ({
      queue: changeSettings(current, patch, input.state, this.clock.now()),
      result: null,
    }));
    this.notifier.notify(queue.id);
    return toQueueRecord(queue, await this.estimates(queue));
  }

  /** Only an empty queue is deleted; deleting a missing queue answers `deleted: false`. */
  async deleteQueue(org: Org, input: QueueRefInput): Promise<{ deleted: boolean }> {
    const { deleted, queueId } = await this.writer.delete(this.keyOf(org, input), (queue) => {
      const active = queue.entries.filter((e) => isActive(e.state)).length;
      if (active > 0) throw queueErrors.notEmpty(active, queue.branch);
    });
    if (queueId) this.notifier.notify(queueId);
    return { deleted };
  }

  /** The ETA of each active entry (src/domain/eta.ts). */
  private estimates(queue: QueueDoc) {
    return this.mergeEstimates.of(queue, this.clock.now());
  }

  /**
   * The ETA of one entry. One that is not ready, or any in a paused queue, has none whatever the rest
   * of the queue holds: then the queue is not walked (submit at depth).
   */
  private estimatesFor(queue: QueueDoc, entry: Entry) {
    if (entry.state === 'NOT_READY' || queue.state === 'paused' || queue.state === 'switching_modes') {
      return Promise.resolve(estimateMergeTimes({ ...queue, entries: [entry] }, ciHistoryOf([]), this.clock.now()));
    }
    return this.estimates(queue);
  }

  private keyOf(org: Org, input: QueueRefInput): { repoKey: string; branch: string } {
    assertOwnsRepo(org, input.repo);
    return { repoKey: repoKey(input.repo), branch: input.targetBranch };
  }

  private async loadQueue(org: Org, input: QueueRefInput): Promise<QueueDoc> {
    const key = this.keyOf(org, input);
    const queue = await this.store.queues.getQueue(key.repoKey, key.branch);
    if (!queue) throw notFound.queue(key.repoKey, key.branch);
    return queue;
  }

  /** The PR's latest entry: the active one, else the most recent ended one (in the document or archived). */
  private async latestEntry(queue: QueueDoc, prNumber: number): Promise<Entry | null> {
    const active = activeEntryFor(queue, prNumber);
    if (active) return active;
    const inDoc = queue.entries.filter((e) => e.prNumber === prNumber).sort((a, b) => b.seq - a.seq)[0];
    const archived = await this.store.queues.latestArchivedEntry(queue.id, prNumber);
    if (inDoc && archived) return inDoc.seq >= archived.seq ? inDoc : archived;
    return inDoc ?? archived ?? null;
  }
}

function assertAccepting(queue: QueueDoc): void {
  const draining = queue.state === 'draining' || (queue.state === 'switching_modes' && queue.switching?.returnTo === 'draining');
  if (draining) throw queueErrors.notAccepting(queue.branch);
}

function settingsPatchOf(input: QueueSettingsPatch): QueueSettingsPatch {
  const patch: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) {
    if (input[k] !== undefined) patch[k] = input[k];
  }
  return patch as QueueSettingsPatch;
}

function factsOf(entry: Entry): PullRequestFacts {
  const { prTitle, prSha, prBaseBranch, prAuthor, readiness } = entry;
  return { prTitle, prSha, prBaseBranch, prAuthor, readiness };
}

function sameEntry(a: Entry, b: Entry): boolean {
  return (
    a.priorityValue === b.priorityValue &&
    a.priorityName === b.priorityName &&
    a.usedDefaultPriorityName === b.usedDefaultPriorityName &&
    a.noBatch === b.noBatch
  );
}

function entryIn(queue: QueueDoc, id: string): Entry {
  const entry = queue.entries.find((e) => e.id === id);
  if (!entry) throw new Error(`entry ${id} is missing from the queue it was just written to`);
  return entry;
}

function newestFirst<T extends { createdAt: string }>(runs: T[]): T[] {
  return [...runs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
}

/** The domain commands report an invalid state with InvalidStateError; every door answers 409. */
function asServiceError<T>(apply: () => T): T {
  try {
    return apply();
  } catch (err) {
    if (err instanceof InvalidStateError) throw invalidState(err.message);
    throw err;
  }
}

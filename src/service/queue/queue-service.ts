import { randomUUID } from 'node:crypto';
import { activeEntryFor, cancelEntry, changeSettings, recordImpactedTargets, recordPullRequest, restartEntry, submitEntry } from '../../planner/index.js';
import { sameSubmission, type Entry } from '../../domain/entry.js';
import { InvalidStateError } from '../../domain/errors.js';
import type { Org } from '../../domain/org.js';
import type { PullRequestInfo } from '../../domain/pull-request.js';
import { resolvePriority } from '../../domain/priority.js';
import { newQueueDoc, type QueueDoc } from '../../domain/queue.js';
import { reason } from '../../domain/reasons.js';
import { TARGET_BYTES_PER_REPO } from '../../domain/retention.js';
import { defaultSettings, type QueueSettings } from '../../domain/settings.js';
import { isActive } from '../../domain/states.js';
import { describeTargets } from '../../domain/targets.js';
import type { Clock } from '../../domain/clock.js';
import type { GitHost } from '../../githost/githost.js';
import { ConflictError } from '../../store/errors.js';
import type { QueueStore, ServerStore, TargetStore } from '../../store/store.js';
import type { QueueTemplateStore } from '../../store/template-store.js';
import { invalidState, notFound } from '../errors.js';
import { readPullRequestFacts, readPullRequestNow, type PullRequestFacts } from './pull-request-facts.js';
import { toSubmittedPullRequestRecord, type SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { queueErrors } from './queue-errors.js';
import { membersToQueue } from './stack-members.js';
import type {
  CreateQueueInput,
  PullRequestRefInput,
  QueueRefInput,
  QueueSettingsPatch,
  SetImpactedTargetsInput,
  SubmitPullRequestInput,
  UpdateQueueInput,
} from './queue-inputs.js';
import { toQueueRecord, type QueueRecord } from '../../records/queue-record.js';
import { QueueDocWriter } from './queue-doc-writer.js';
import { QueueReads } from './queue-reads.js';
import { queueEvents } from '../../events/queue-events.js';
import { assertSettingsInBounds } from './settings-bounds.js';
import { assertOwnsRepo } from '../access/tenancy.js';
import { QueueFreezes } from './queue-freezes.js';
import { TemplateQueues } from './template-queues.js';
import { isManagedByFile } from '../../domain/queue-template.js';

/** Schedules a reconcile of a queue (the engine). Called after every change of a queue. */
export interface QueueNotifier {
  notify(queueId: string): void;
  /** A PR head's target list was replaced: drop any copy of the old one (the engine caches lists). */
  forgetImpactedTargets?(repoKey: string, prNumber: number, sha: string): void;
  /** Read a NOT_READY entry's PR from the git host at the next reconcile, not at the next poll, and reconcile. */
  recheckPullRequest?(queueId: string, entryId: string): void;
  /** A new entry's PR was just read from the git host: the next read is due at the next poll, not at once. */
  pullRequestRead?(queueId: string, entryId: string): void;
}

export interface QueueServiceDeps {
  store: { queues: QueueStore; targets: TargetStore; server: ServerStore; templates: QueueTemplateStore };
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
export class QueueService extends QueueReads {
  private readonly gitHost: GitHost;
  private readonly notifier: QueueNotifier;
  private readonly newId: () => string;
  private readonly writer: QueueDocWriter;
  declare protected readonly store: QueueServiceDeps['store'];
  /** freezeQueue and unfreezeQueue. */
  readonly freezes: QueueFreezes;
  private readonly templateQueues: TemplateQueues;

  constructor(deps: QueueServiceDeps) {
    super(deps.store, deps.clock);
    this.writer = new QueueDocWriter(deps.store, () => deps.clock.now());
    this.gitHost = deps.gitHost;
    this.notifier = deps.notifier;
    this.newId = deps.newId ?? randomUUID;
    const record = async (q: QueueDoc) => toQueueRecord(q, this.clock.now(), await this.estimates(q));
    this.freezes = new QueueFreezes({ writer: this.writer, clock: deps.clock, notify: (id) => this.notifier.notify(id), record });
    this.templateQueues = new TemplateQueues({ store: deps.store, clock: deps.clock, newId: this.newId, notify: (id) => deps.notifier.notify(id) });
  }

  /** Creates the branch's queue from the repository's matching template if it has none (the App's `/merge`). */
  async ensureQueue(org: Org, input: QueueRefInput): Promise<void> {
    await this.templateQueues.queueFor(org, input.repo, this.keyOf(org, input));
  }

  /** `read.pullRequest`: the PR as the caller has just read it from the git host (a `/merge` comment), not read again. */
  async submitPullRequest(org: Org, input: SubmitPullRequestInput, read: { pullRequest?: PullRequestInfo } = {}): Promise<SubmittedPullRequestRecord> {
    const prNumber = input.pr.number;
    // A stack member is queued with the members below it, in the queue of the branch the stack lands on.
    const { members, target } = await membersToQueue(this.gitHost, input.repo, prNumber, input.stack);
    const key = this.keyOf(org, target ? { ...input, targetBranch: target } : input);
    const priority = input.priority === undefined ? null : resolvePriority(input.priority);
    const ids = new Map(members.map((m) => [m.number, this.newId()]));
    const readFacts = (q: QueueDoc, n: number) =>
      readPullRequestFacts({ gitHost: this.gitHost, store: this.store }, q, n, n === prNumber ? read.pullRequest : undefined);

    // The git host is asked only for new entries (a re-submit changes priority, noBatch and the stack
    // place only), and before the queue's write lock is taken, so a slow host does not hold up other writers.
    const before = await this.templateQueues.queueFor(org, input.repo, key);
    if (!before) throw notFound.queue(key.repoKey, key.branch);
    assertAccepting(before);
    const fetched = new Map<number, PullRequestFacts>();
    const reread = new Map<number, PullRequestInfo | null>();
    for (const m of members) {
      const active = activeEntryFor(before, m.number);
      if (!active) fetched.set(m.number, await readFacts(before, m.number));
      else if (active.state === 'NOT_READY') {
        // Submitting a PR that waits as NOT_READY again is how a user says "it is ready now" (say, right
        // after opening it in the sandbox): the answer carries what the git host says now, not an old note.
        const now = m.number === prNumber && read.pullRequest ? read.pullRequest : await readPullRequestNow(this.gitHost, before, m.number);
        if (now !== undefined) reread.set(m.number, now);
      }
    }

    const { queue, result: entry, changed } = await this.writer.update(
      key,
      async (latest) => {
        assertAccepting(latest);
        let next = latest;
        for (const [n, pr] of reread) next = recordPullRequest(next, pr, this.clock.now(), null, n);
        const refreshed = next;
        let named: Entry | null = null;
        let same = true;
        for (const m of members) {
          const active = activeEntryFor(next, m.number);
          let facts = active ? factsOf(active) : fetched.get(m.number);
          if (!facts) fetched.set(m.number, (facts = await readFacts(next, m.number)));
          const submitted = submitEntry(
            next,
            { entryId: ids.get(m.number)!, prNumber: m.number, priority, noBatch: input.noBatch ?? null, ...facts, ...(m.place ? { stack: m.place } : {}) },
            this.clock.now(),
          );
          same &&= !!active && sameSubmission(active, submitted.entry);
          next = submitted.queue;
          if (m.number === prNumber) named = submitted.entry;
        }
        if (!same) return { queue: next, result: named! };
        const result = activeEntryFor(refreshed, prNumber)!;
        return refreshed === latest ? { unchanged: true, result } : { queue: refreshed, result };
      },
      before,
    );
    for (const m of members) {
      const stored = activeEntryFor(queue, m.number);
      if (!stored) continue;
      // Submitting again is how a user says "it is ready now": read it again at once, not at the next poll.
      if (stored.state === 'NOT_READY' && !fetched.has(m.number)) this.notifier.recheckPullRequest?.(queue.id, stored.id);
      // A PR the host described has a head: the engine need not read it again at once.
      else if (changed && fetched.get(m.number)?.prSha) this.notifier.pullRequestRead?.(queue.id, stored.id);
    }
    if (changed) this.notifier.notify(queue.id);
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

  async createQueue(org: Org, input: CreateQueueInput): Promise<QueueRecord> {
    assertOwnsRepo(org, input.repo);
    const patch = settingsPatchOf(input);
    assertSettingsInBounds(patch);
    const now = this.clock.now().toISOString();
    const queue = newQueueDoc({
      id: this.newId(),
      orgId: org.id,
      repo: input.repo,
      branch: input.targetBranch,
      settings: defaultSettings(patch),
      at: now,
      state: input.state ?? 'running',
      version: 0,
    });
    try {
      await this.store.queues.insertQueue(queue, queueEvents(null, queue, now));
    } catch (err) {
      if (err instanceof ConflictError) throw queueErrors.exists(input.repo, input.targetBranch);
      throw err;
    }
    this.notifier.notify(queue.id);
    return toQueueRecord(queue, this.clock.now(), await this.estimates(queue));
  }

  /** Omitted settings stay unchanged; a mode change goes through `switching_modes` when runs are in flight. */
  async updateQueue(org: Org, input: UpdateQueueInput): Promise<QueueRecord> {
    const key = this.keyOf(org, input);
    const patch = settingsPatchOf(input);
    assertSettingsInBounds(patch);
    if (Object.keys(patch).length === 0 && input.state === undefined) {
      const unchanged = await this.loadQueue(org, input);
      return toQueueRecord(unchanged, this.clock.now(), await this.estimates(unchanged));
    }
    const { queue } = await this.writer.update(key, (current) => {
      if (Object.keys(patch).length > 0 && isManagedByFile(current.settingsSource)) throw queueErrors.managedByFile(current.branch, current.settingsSource!);
      return { queue: changeSettings(current, patch, input.state, this.clock.now()), result: null };
    });
    this.notifier.notify(queue.id);
    return toQueueRecord(queue, this.clock.now(), await this.estimates(queue));
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
}

function assertAccepting(queue: QueueDoc): void {
  const draining = queue.state === 'draining' || (queue.state === 'switching_modes' && queue.switching?.returnTo === 'draining');
  if (draining) throw queueErrors.notAccepting(queue.branch);
}

export function settingsPatchOf(input: QueueSettingsPatch): QueueSettingsPatch {
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

function entryIn(queue: QueueDoc, id: string): Entry {
  const entry = queue.entries.find((e) => e.id === id);
  if (!entry) throw new Error(`entry ${id} is missing from the queue it was just written to`);
  return entry;
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

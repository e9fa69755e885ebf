import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import { repoKey } from '../domain/repo.js';
import type { FailedTest, StatusCheck } from '../domain/run.js';
import { isActive } from '../domain/states.js';
import type { GitHost, PullRequestInfo } from '../githost/githost.js';
import { markReported, markReporting, recordPullRequest, recordStatusChecks, recordTestResults } from '../planner/index.js';
import type { LeaseStore, QueueStore, TargetStore } from '../store/store.js';
import { Actuator } from './actuation.js';
import type { Clock } from '../domain/clock.js';
import { EarlyChecks, EarlyTestResults } from './early-checks.js';
import type { Fact } from './fact.js';
import { MergeEstimates } from '../queue-docs/merge-estimates.js';
import { GitHostObserver } from './observation.js';
import { MAX_COMMIT_CONFLICTS, QueueCommitter } from '../queue-docs/queue-committer.js';
import { QueueLease } from './queue-lease.js';
import type { PendingFact } from './queue-runtime.js';
import { Reconciler } from './reconciler.js';
import { commentChannel, statusChannel } from './report-channels.js';
import { Reporter } from './reporter.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
import { realScheduler, type Scheduler } from '../domain/scheduler.js';
import { logTransitions } from './transition-log.js';
import { QueueWorker } from './worker.js';

export type { Fact } from './fact.js';

export interface EngineOptions {
  store: { queues: QueueStore; targets: TargetStore; leases: LeaseStore };
  gitHost: GitHost;
  clock: Clock;
  logger: Logger;
  /** Real timers by default; the simulator and tests pass virtual time. */
  scheduler?: Scheduler;
  /** How often runs in flight and NOT_READY PRs are polled (the fallback for lost webhooks). */
  pollIntervalMs?: number;
  retry?: RetryPolicy;
  /** Reconciles in a row in which the git host failed to build a run's test branch before its PRs fail. */
  maxCreateFailures?: number;
  /** How long to wait before trying a failed side effect again. */
  effectRetryMs?: number;
  /** How long a PR's state must hold before its status and comment say it (0: at once). */
  reportDebounceMs?: number;
  /** How long a PR is in the queue before its queued status is said (0: at once; see statusChannel). */
  queuedStatusAfterMs?: number;
  /** Told the wall time of every reconcile, finished or failed (the service's metrics). */
  onReconciled?: (queueId: string, seconds: number) => void;
  /** Told every queue document the engine commits, ended entries still in it (the ETA range's coverage). */
  onCommitted?: (doc: QueueDoc) => void;
  /** Where the per-queue leases are kept (the store by default: replicas sharing it share them). */
  leases?: LeaseStore;
  /** This process as a lease holder: `host:pid:random` by default. */
  holderId?: string;
  /** How long a queue's lease lasts unless renewed (30 s by default). */
  leaseMs?: number;
}

/** How long a queue's lease lasts unless renewed, by default. */
export const DEFAULT_LEASE_MS = 30_000;
/** How long a status or comment waits for the queue's own work at most. */
const REPORT_MAX_WAIT_MS = 3_000;
/** How long a fact from outside waits for a reconcile to take it up before it is committed alone. */
const FOLD_WAIT_MS = 2_000;

/**
 * The engine's doors: what the service, the GitHub App and the simulator tell it (facts from
 * outside, notifications), wired to the worker (when to reconcile), the reconciler (what to do), the
 * observation and actuation of the git host, and the reporter (what to tell people).
 */
export class Engine {
  private readonly queues: QueueStore;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly committer: QueueCommitter;
  private readonly onCommitted: ((doc: QueueDoc) => void) | undefined;
  private readonly worker: QueueWorker;
  /** Test branch head -> queue, to route status reports without a search. */
  private readonly testBranchHeads = new Map<string, string>();
  private readonly earlyChecks = new EarlyChecks();
  private readonly earlyTestResults = new EarlyTestResults();
  private readonly reporter: Reporter;
  private readonly scheduler: Scheduler;

  constructor(options: EngineOptions) {
    const { store, gitHost, clock, logger } = options;
    this.onCommitted = options.onCommitted;
    this.queues = store.queues;
    this.clock = clock;
    this.logger = logger;
    const scheduler = options.scheduler ?? realScheduler;
    this.scheduler = scheduler;
    const pollIntervalMs = options.pollIntervalMs ?? 60_000;
    const retryPolicy = options.retry ?? DEFAULT_RETRY;
    const effectRetryMs = options.effectRetryMs ?? 30_000;
    const retrying = <T>(fn: () => Promise<T>) => withRetry(fn, retryPolicy, scheduler);
    this.committer = new QueueCommitter(store.queues, () => this.clock.now());
    const reconciler = new Reconciler({
      store,
      clock,
      logger,
      effectRetryMs,
      committer: this.committer,
      lease: new QueueLease({
        leases: options.leases ?? store.leases,
        clock,
        scheduler,
        logger,
        holder: options.holderId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
        leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      }),
      observer: new GitHostObserver({ gitHost, clock, logger, withRetry: retrying, pollIntervalMs }),
      actuator: new Actuator({
        gitHost,
        clock,
        logger,
        withRetry: retrying,
        maxCreateFailures: options.maxCreateFailures ?? 5,
        effectRetryMs,
        earlyChecks: this.earlyChecks,
        earlyTestResults: this.earlyTestResults,
        testBranchHeads: this.testBranchHeads,
      }),
      onLoaded: (doc) => this.reporter.offer(doc),
      onCommitted: this.committed,
    });
    this.worker = new QueueWorker({
      store,
      clock,
      scheduler,
      logger,
      pollIntervalMs,
      reconcile: (queueId, rt, facts) => reconciler.reconcile(queueId, rt, facts),
      ...(options.onReconciled ? { onReconciled: options.onReconciled } : {}),
      onForget: (queueId) => {
        for (const [sha, id] of this.testBranchHeads) if (id === queueId) this.testBranchHeads.delete(sha);
        this.reporter.forget(queueId);
      },
    });
    const estimates = new MergeEstimates(store.queues);
    this.reporter = new Reporter({
      channels: [statusChannel(gitHost, (doc) => estimates.of(doc, clock.now()), options.queuedStatusAfterMs ?? 0), commentChannel(gitHost)],
      clock,
      scheduler,
      logger,
      debounceMs: options.reportDebounceMs ?? 0,
      retryMs: effectRetryMs,
      onReported: async (queueId, entryId, channel, key) => {
        await this.recordFacts(queueId, (q) => markReported(q, entryId, channel, key), { reconcile: false });
      },
      onReporting: async (queueId, entryId, channel, key) => {
        let write = false;
        await this.recordFacts(
          queueId,
          (q) => {
            const marked = markReporting(q, entryId, channel, key);
            write = marked.write;
            return marked.queue;
          },
          { reconcile: false },
        );
        return write;
      },
      queueIdle: (queueId) => this.worker.idle(queueId),
      maxWaitMs: REPORT_MAX_WAIT_MS,
    });
  }

  /** Every commit of the engine: its transitions are logged and offered to the reporter. */
  private readonly committed = (prev: QueueDoc, next: QueueDoc): void => {
    logTransitions(this.logger, prev, next);
    this.reporter.offer(next);
    this.onCommitted?.(next);
  };

  // ---- Doors ----

  /** Asks for a reconcile of the queue soon. Many calls while one runs coalesce into one more run. */
  notify(queueId: string): void {
    this.worker.notify(queueId);
  }

  /**
   * Reconciles the queue now (after any reconcile of it under way); errors reach the caller. `facts`
   * are recorded in the reconcile's first commit (a driver that collects facts itself, such as the
   * simulator, saves a commit per batch).
   */
  reconcile(queueId: string, options: { facts?: readonly Fact[] } = {}): Promise<void> {
    return this.worker.reconcile(queueId, options.facts ?? []);
  }

  /** Resolves when no reconcile is running or scheduled. */
  async whenIdle(): Promise<void> {
    for (;;) {
      if (this.worker.busy) await this.worker.settle();
      else if (this.reporter.busy) await this.reporter.whenIdle();
      else return;
    }
  }

  /**
   * Records facts that arrived from outside (a webhook, the sandbox CI) in the next commit of a
   * reconcile of the queue, which it asks for (with `reconcile: false`, in a commit of their own).
   * Resolves once they are stored; false when the queue does not exist. A fact that no reconcile
   * took up within FOLD_WAIT_MS (one busy with slow effects) is committed on its own, so the door
   * that brought it (a webhook with a deadline) is not held up.
   */
  recordFacts(queueId: string, fact: Fact, options: { reconcile?: boolean } = {}): Promise<boolean> {
    const recorded =
      options.reconcile === false || this.worker.isStopped
        ? this.commitFact(queueId, fact)
        : new Promise<boolean>((resolve, reject) => {
            const pendingFacts = this.worker.runtime(queueId).pendingFacts;
            const alone = this.scheduler.schedule(FOLD_WAIT_MS, () => {
              const waiting = pendingFacts.indexOf(pending);
              if (waiting < 0) return;
              pendingFacts.splice(waiting, 1);
              this.commitFact(queueId, fact).then(resolve, reject);
            });
            const pending: PendingFact = {
              fact,
              recorded: (stored) => (alone.cancel(), resolve(stored)),
              failed: (err) => (alone.cancel(), reject(err)),
            };
            pendingFacts.push(pending);
            this.worker.notify(queueId);
          });
    this.worker.track(recorded.catch(() => undefined));
    return recorded;
  }

  private async commitFact(queueId: string, fact: Fact): Promise<boolean> {
    const committed = await this.committer.update(null, () => this.queues.getQueueById(queueId), (q) => ({ queue: fact(q), result: null }), {
      archive: true,
      tooBusy: () => new Error(`queue ${queueId}: ${MAX_COMMIT_CONFLICTS} commit conflicts in a row`),
      onCommitted: this.committed,
    });
    return committed !== null;
  }

  /** Records statuses reported on a commit, for the queue whose run tests that commit. */
  recordStatuses(repo: RepoRef, sha: string, checks: StatusCheck[], options: { reconcile?: boolean } = {}): Promise<boolean> {
    this.earlyChecks.keep(sha, checks); // before looking for its run: see Actuator.createTestBranch
    const recorded = (async () => {
      const queueId = this.testBranchHeads.get(sha) ?? queueTestingIn(await this.queues.listQueues({ repoKey: repoKey(repo) }), sha);
      if (!queueId) return false;
      return this.recordFacts(queueId, (q) => recordStatusChecks(q, sha, checks, this.clock.now()), options);
    })();
    this.worker.track(recorded.catch(() => undefined));
    return recorded;
  }

  /**
   * Test results uploaded for a commit: recorded for the queue whose run tests that commit (results
   * for any other commit are not the queue's), or kept a while for a run about to be recorded.
   */
  recordTestResults(repo: RepoRef, sha: string, failedTests: FailedTest[]): Promise<boolean> {
    this.earlyTestResults.keep(sha, failedTests); // before looking for its run: see Actuator.createTestBranch
    const recorded = (async () => {
      const queueId = this.testBranchHeads.get(sha) ?? queueTestingIn(await this.queues.listQueues({ repoKey: repoKey(repo) }), sha);
      if (!queueId) return false;
      return this.recordFacts(queueId, (q) => recordTestResults(q, sha, failedTests, this.clock.now()));
    })();
    this.worker.track(recorded.catch(() => undefined));
    return recorded;
  }

  /**
   * Checks reported on a commit (webhooks): recorded for the run whose test branch head it is. On any
   * other commit they may be a PR's own checks, which can make a NOT_READY PR with that head ready
   * (branch protection): such PRs are read again now rather than at the next poll.
   */
  async recordCommitChecks(repo: RepoRef, sha: string, checks: StatusCheck[]): Promise<void> {
    this.earlyChecks.keep(sha, checks); // before looking for its run: see Actuator.createTestBranch
    const known = this.testBranchHeads.get(sha);
    const queues = known ? [] : await this.queues.listQueues({ repoKey: repoKey(repo) });
    const testing = known ?? queueTestingIn(queues, sha);
    if (testing) {
      await this.recordFacts(testing, (q) => recordStatusChecks(q, sha, checks, this.clock.now()));
      return;
    }
    for (const q of queues) {
      const heads = q.entries.filter((e) => e.state === 'NOT_READY' && e.prSha === sha);
      if (heads.length === 0) continue;
      const rt = this.worker.runtime(q.id);
      for (const e of heads) rt.prCheckedAt.delete(e.id);
      this.notify(q.id);
    }
  }

  /** A NOT_READY entry is read from the git host at the next reconcile (a re-submission), which starts now. */
  recheckPullRequest(queueId: string, entryId: string): void {
    this.worker.runtime(queueId).prCheckedAt.delete(entryId);
    this.notify(queueId);
  }

  /** A new entry's PR was read by the service that submitted it: not read again before the next poll. */
  pullRequestRead(queueId: string, entryId: string): void {
    this.worker.runtime(queueId).prCheckedAt.set(entryId, this.clock.now().getTime());
  }

  /**
   * What a webhook says about a pull request, recorded in every queue of its repository that holds it
   * (new commits, closed, merged elsewhere, draft, base changed: the planner takes it from there).
   * Returns how many queues held it.
   */
  async recordPullRequestInfo(repo: RepoRef, pr: PullRequestInfo): Promise<number> {
    const queues = await this.queues.listQueues({ repoKey: repoKey(repo) });
    let held = 0;
    for (const q of queues) {
      if (!q.entries.some((e) => e.prNumber === pr.number && isActive(e.state))) continue;
      if (await this.recordFacts(q.id, (doc) => recordPullRequest(doc, pr, this.clock.now()))) held++;
    }
    return held;
  }

  /** The PRs of `repo` that some queue holds (a stack's event reads again only the members queued). */
  async activePullRequests(repo: RepoRef): Promise<Set<number>> {
    const queues = await this.queues.listQueues({ repoKey: repoKey(repo) });
    return new Set(queues.flatMap((q) => q.entries.filter((e) => isActive(e.state)).map((e) => e.prNumber)));
  }

  /**
   * A branch of the repository moved (a push): the queues targeting it read its head again now rather
   * than at their next poll. The head is read, not taken from the event: push events may arrive out
   * of order.
   */
  async branchMoved(repo: RepoRef, branch: string): Promise<void> {
    const queues = await this.queues.listQueues({ repoKey: repoKey(repo) });
    for (const q of queues) {
      if (q.branch !== branch) continue;
      this.worker.runtime(q.id).headCheckedAt = null;
      this.notify(q.id);
    }
  }

  /** Forget the cached impacted targets of a PR head whose list was replaced. */
  forgetImpactedTargets(_repoKey: string, prNumber: number, sha: string): void {
    for (const rt of this.worker.runtimes()) rt.targets.forget(prNumber, sha);
  }

  /** When the planner next wants to act on this queue without new facts (epoch ms), if known. */
  wakeUpAt(queueId: string): number | null {
    return this.worker.wakeUpAt(queueId);
  }

  /** How many queues the engine keeps state for in memory (deleted queues are forgotten). */
  get queuesInMemory(): number {
    return this.worker.size;
  }

  // ---- Timers ----

  /** Reconciles every queue once (catching up after a restart), then polls and honours wake-ups. */
  start(): void {
    this.worker.start();
  }

  /** Stops the timers and waits for the reconciles under way. */
  async stop(): Promise<void> {
    this.worker.stop();
    this.reporter.stop();
    await this.whenIdle();
  }
}

/** The queue of these whose run tests the commit `sha` (a test branch head), if any. */
function queueTestingIn(queues: readonly QueueDoc[], sha: string): string | null {
  return queues.find((q) => q.runs.some((r) => r.testBranchSha === sha))?.id ?? null;
}

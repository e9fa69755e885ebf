import type { Logger } from 'pino';
import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import { repoKey } from '../domain/repo.js';
import { testBranchName, type FailedTest, type StatusCheck, type TestRun } from '../domain/run.js';
import { isActive } from '../domain/states.js';
import type { TargetSet } from '../domain/targets.js';
import type { GitHost, PullRequestInfo, TestBranchSpec } from '../githost/githost.js';
import { NO_GIT_HOST_NOTE } from '../githost/none.js';
import {
  applyActions,
  archivable,
  nextWakeUp,
  plan,
  recordBranchDeleted,
  recordImpactedTargets,
  recordMergeRefused,
  recordMerged,
  recordPullRequest,
  recordRunConflict,
  recordRunCreated,
  recordStatusChecks,
  recordTestResults,
  recordTargetHead,
  lineageIndex,
  type PlanInput,
} from '../planner/index.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import { recordDirectMergeFacts, requiredChecksPassed } from './direct-merge.js';
import { mergesDue, runsToCleanUp, runsToCreate } from './effects.js';
import { failForGitHostError } from './git-host-failure.js';
import { QueueTargets, needsTargets } from './queue-targets.js';
import { loadMergeEstimates } from './merge-estimates.js';
import { commentChannel, statusChannel } from './report-channels.js';
import { Reporter, markReported } from './reporter.js';
import { DEFAULT_RETRY, describeError, withRetry, type RetryPolicy } from './retry.js';
import { realScheduler, type Scheduler, type TimerHandle } from './scheduler.js';
import { draftPullRequestFor } from './test-branch-pr.js';
import { EarlyChecks, EarlyTestResults } from './early-checks.js';
import { testBranchStart } from './test-branch-start.js';

/** A fact about the world, recorded as a pure change of the queue document. */
export type Fact = (queue: QueueDoc) => QueueDoc;

export interface EngineOptions {
  store: Store;
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
}

/** Plan/execute rounds within one reconcile before it gives up (a planner that never settles). */
const MAX_ROUNDS = 200;
/** How long a status or comment waits for the queue's own work at most. */
const REPORT_MAX_WAIT_MS = 3_000;
/** Compare-and-set conflicts in a row before a commit gives up. */
const MAX_CONFLICTS = 20;

const NO_TARGETS: ReadonlyMap<string, TargetSet> = new Map();

/** What the engine keeps in memory per queue; all of it can be lost (a restart rebuilds it). */
interface QueueRuntime {
  /** The per-queue mutex: reconciles of one queue run one after the other. */
  chain: Promise<void>;
  notifyPending: boolean;
  wakeTimer: TimerHandle | null;
  wakeAt: number | null;
  prCheckedAt: Map<string, number>;
  statusPolledAt: Map<string, number>;
  headCheckedAt: number | null;
  /** Entry -> `prSha|targetSha` last checked for directMergeMode. */
  directChecked: Map<string, string>;
  createFailures: Map<string, number>;
  targets: QueueTargets;
}

interface EffectsOutcome {
  facts: Fact[];
  /** Something failed and should be tried again then. */
  retryAt: number | null;
}

/**
 * The reconciler (level-triggered): load a queue, refresh the facts that are due, plan, persist with
 * compare-and-set, carry out the side effects the persisted document expresses, record their
 * outcomes as facts, and repeat until nothing is left to do.
 */
export class Engine {
  private readonly store: Store;
  private readonly gitHost: GitHost;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly scheduler: Scheduler;
  private readonly pollIntervalMs: number;
  private readonly retryPolicy: RetryPolicy;
  private readonly maxCreateFailures: number;
  private readonly effectRetryMs: number;
  private readonly queues = new Map<string, QueueRuntime>();
  private readonly inflight = new Set<Promise<unknown>>();
  /** Test branch head -> queue, to route status reports without a search. */
  private readonly shaToQueue = new Map<string, string>();
  private readonly earlyChecks = new EarlyChecks();
  private readonly earlyTestResults = new EarlyTestResults();
  private readonly reporter: Reporter;
  private started = false;
  private stopped = false;
  private pollTimer: TimerHandle | null = null;

  constructor(options: EngineOptions) {
    this.store = options.store;
    this.gitHost = options.gitHost;
    this.clock = options.clock;
    this.logger = options.logger;
    this.scheduler = options.scheduler ?? realScheduler;
    this.pollIntervalMs = options.pollIntervalMs ?? 60_000;
    this.retryPolicy = options.retry ?? DEFAULT_RETRY;
    this.maxCreateFailures = options.maxCreateFailures ?? 5;
    this.effectRetryMs = options.effectRetryMs ?? 30_000;
    this.reporter = new Reporter({
      channels: [statusChannel(this.gitHost, (doc) => loadMergeEstimates(this.store, doc, this.clock.now())), commentChannel(this.gitHost)],
      clock: this.clock,
      scheduler: this.scheduler,
      logger: this.logger,
      debounceMs: options.reportDebounceMs ?? 0,
      retryMs: this.effectRetryMs,
      onReported: async (queueId, entryId, channel, key) => {
        await this.recordFacts(queueId, (q) => markReported(q, entryId, channel, key), { reconcile: false });
      },
      queueIdle: (queueId) => this.queues.get(queueId)?.chain ?? Promise.resolve(),
      maxWaitMs: REPORT_MAX_WAIT_MS,
    });
  }

  // ---- Doors ----

  /** Asks for a reconcile of the queue soon. Many calls while one runs coalesce into one more run. */
  notify(queueId: string): void {
    if (this.stopped) return;
    const rt = this.runtime(queueId);
    if (rt.notifyPending) return;
    rt.notifyPending = true;
    const run = this.exclusive(rt, async () => {
      rt.notifyPending = false;
      await this.reconcileNow(queueId, rt);
    }).catch((err: unknown) => this.logger.error({ err, queueId }, 'reconcile failed'));
    this.track(run);
  }

  /**
   * Reconciles the queue now (after any reconcile of it under way); errors reach the caller. `facts`
   * are recorded in the reconcile's first commit (a driver that collects facts itself, such as the
   * simulator, saves a commit per batch).
   */
  reconcile(queueId: string, options: { facts?: readonly Fact[] } = {}): Promise<void> {
    const rt = this.runtime(queueId);
    const run = this.exclusive(rt, () => this.reconcileNow(queueId, rt, options.facts));
    this.track(run.catch(() => undefined));
    return run;
  }

  /** Resolves when no reconcile is running or scheduled. */
  async whenIdle(): Promise<void> {
    for (;;) {
      if (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
      else if (this.reporter.busy) await this.reporter.whenIdle();
      else return;
    }
  }

  /**
   * Records facts that arrived from outside (a webhook, the sandbox CI), commits them, then asks for a
   * reconcile. Returns false when the queue does not exist.
   */
  recordFacts(queueId: string, fact: Fact, options: { reconcile?: boolean } = {}): Promise<boolean> {
    const recorded = (async () => {
      const doc = await this.store.getQueueById(queueId);
      if (!doc) return false;
      const stored = await this.commitFacts(this.runtime(queueId), doc, [fact]);
      if (stored && options.reconcile !== false) this.notify(queueId);
      return stored !== null;
    })();
    this.track(recorded.catch(() => undefined));
    return recorded;
  }

  /** Records statuses reported on a commit, for the queue whose run tests that commit. */
  recordStatuses(repo: RepoRef, sha: string, checks: StatusCheck[], options: { reconcile?: boolean } = {}): Promise<boolean> {
    this.earlyChecks.keep(sha, checks); // before looking for its run: see createTestBranch
    const recorded = (async () => {
      const queueId = this.shaToQueue.get(sha) ?? queueTestingIn(await this.store.listQueues({ repoKey: repoKey(repo) }), sha);
      if (!queueId) return false;
      return this.recordFacts(queueId, (q) => recordStatusChecks(q, sha, checks, this.clock.now()), options);
    })();
    this.track(recorded.catch(() => undefined));
    return recorded;
  }

  /**
   * Test results uploaded for a commit: recorded for the queue whose run tests that commit (results
   * for any other commit are not the queue's), or kept a while for a run about to be recorded.
   */
  recordTestResults(repo: RepoRef, sha: string, failedTests: FailedTest[]): Promise<boolean> {
    this.earlyTestResults.keep(sha, failedTests); // before looking for its run: see createTestBranch
    const recorded = (async () => {
      const queueId = this.shaToQueue.get(sha) ?? queueTestingIn(await this.store.listQueues({ repoKey: repoKey(repo) }), sha);
      if (!queueId) return false;
      return this.recordFacts(queueId, (q) => recordTestResults(q, sha, failedTests, this.clock.now()));
    })();
    this.track(recorded.catch(() => undefined));
    return recorded;
  }

  /**
   * Checks reported on a commit (webhooks): recorded for the run whose test branch head it is. On any
   * other commit they may be a PR's own checks, which can make a NOT_READY PR with that head ready
   * (branch protection): such PRs are read again now rather than at the next poll.
   */
  async recordCommitChecks(repo: RepoRef, sha: string, checks: StatusCheck[]): Promise<void> {
    this.earlyChecks.keep(sha, checks); // before looking for its run: see createTestBranch
    const known = this.shaToQueue.get(sha);
    const queues = known ? [] : await this.store.listQueues({ repoKey: repoKey(repo) });
    const testing = known ?? queueTestingIn(queues, sha);
    if (testing) {
      await this.recordFacts(testing, (q) => recordStatusChecks(q, sha, checks, this.clock.now()));
      return;
    }
    for (const q of queues) {
      const heads = q.entries.filter((e) => e.state === 'NOT_READY' && e.prSha === sha);
      if (heads.length === 0) continue;
      const rt = this.runtime(q.id);
      for (const e of heads) rt.prCheckedAt.delete(e.id);
      this.notify(q.id);
    }
  }

  /** A NOT_READY entry is read from the git host at the next reconcile (a re-submission), which starts now. */
  recheckPullRequest(queueId: string, entryId: string): void {
    this.runtime(queueId).prCheckedAt.delete(entryId);
    this.notify(queueId);
  }

  /**
   * What a webhook says about a pull request, recorded in every queue of its repository that holds it
   * (new commits, closed, merged elsewhere, draft, base changed: the planner takes it from there).
   * Returns how many queues held it.
   */
  async recordPullRequestInfo(repo: RepoRef, pr: PullRequestInfo): Promise<number> {
    const queues = await this.store.listQueues({ repoKey: repoKey(repo) });
    let held = 0;
    for (const q of queues) {
      if (!q.entries.some((e) => e.prNumber === pr.number && isActive(e.state))) continue;
      if (await this.recordFacts(q.id, (doc) => recordPullRequest(doc, pr, this.clock.now()))) held++;
    }
    return held;
  }

  /**
   * A branch of the repository moved (a push): the queues targeting it read its head again now rather
   * than at their next poll. The head is read, not taken from the event: push events may arrive out
   * of order.
   */
  async branchMoved(repo: RepoRef, branch: string): Promise<void> {
    const queues = await this.store.listQueues({ repoKey: repoKey(repo) });
    for (const q of queues) {
      if (q.branch !== branch) continue;
      this.runtime(q.id).headCheckedAt = null;
      this.notify(q.id);
    }
  }

  /** Forget the cached impacted targets of a PR head whose list was replaced. */
  forgetImpactedTargets(_repoKey: string, prNumber: number, sha: string): void {
    for (const rt of this.queues.values()) rt.targets.forget(prNumber, sha);
  }

  /** When the planner next wants to act on this queue without new facts (epoch ms), if known. */
  wakeUpAt(queueId: string): number | null {
    return this.queues.get(queueId)?.wakeAt ?? null;
  }

  // ---- Timers ----

  /** Reconciles every queue once (catching up after a restart), then polls and honours wake-ups. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.pollTick(true);
  }

  /** Stops the timers and waits for the reconciles under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pollTimer?.cancel();
    this.pollTimer = null;
    for (const rt of this.queues.values()) {
      rt.wakeTimer?.cancel();
      rt.wakeTimer = null;
    }
    this.reporter.stop();
    await this.whenIdle();
  }

  private pollTick(all: boolean): void {
    if (this.stopped) return;
    const tick = this.store
      .listQueues({})
      .then((queues) => {
        for (const q of queues) if (all || needsPolling(q)) this.notify(q.id);
      })
      .catch((err: unknown) => this.logger.error({ err }, 'polling the queues failed'));
    this.track(tick);
    if (Number.isFinite(this.pollIntervalMs)) this.pollTimer = this.scheduler.schedule(this.pollIntervalMs, () => this.pollTick(false));
  }

  private scheduleWakeUp(queueId: string, rt: QueueRuntime, at: number | null): void {
    rt.wakeAt = at;
    rt.wakeTimer?.cancel();
    rt.wakeTimer = null;
    if (at === null || !this.started || this.stopped) return;
    rt.wakeTimer = this.scheduler.schedule(at - this.clock.now().getTime(), () => {
      rt.wakeTimer = null;
      this.notify(queueId);
    });
  }

  // ---- The loop ----

  /**
   * One reconcile. Each round applies the facts learnt so far and the plan they lead to in one
   * commit, then carries out the side effects that the committed document asks for; their outcomes
   * are the facts of the next round. Side effects only ever follow from a committed document.
   */
  private async reconcileNow(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[] = []): Promise<void> {
    let doc = await this.store.getQueueById(queueId);
    if (!doc) return this.forget(queueId);
    this.reporter.offer(doc);

    // Refresh what is due in the document as the given facts leave it (e.g. PRs they just submitted).
    let withInitial = doc;
    for (const fact of initialFacts) withInitial = fact(withInitial);
    let facts: Fact[] = [...initialFacts, ...(await this.dueFacts(rt, withInitial))];
    let input: PlanInput = { queue: doc, targets: NO_TARGETS };
    let retryAt: number | null = null;
    let conflicts = 0;
    for (let round = 0; ; round++) {
      if (round === MAX_ROUNDS) {
        this.logger.error({ queueId, branch: doc.branch }, 'reconcile did not settle; continuing at the next wake-up');
        retryAt = this.clock.now().getTime() + this.effectRetryMs;
        break;
      }
      const now = this.clock.now();
      let next: QueueDoc = doc;
      for (const fact of facts) next = fact(next);
      input = { queue: next, targets: needsTargets(next) ? await rt.targets.load(next) : NO_TARGETS };
      const actions = plan(input, now);
      if (actions.length > 0) next = applyActions(next, actions, now);
      if (next !== doc) {
        const stored = await this.commit(rt, doc, next);
        if (!stored) {
          // Someone else committed first: learn what they did, then apply our facts again and re-plan.
          if (++conflicts > MAX_CONFLICTS) throw new Error(`queue ${queueId}: ${MAX_CONFLICTS} commit conflicts in a row`);
          const reloaded = await this.store.getQueueById(queueId);
          if (!reloaded) return this.forget(queueId);
          doc = reloaded;
          continue;
        }
        conflicts = 0;
        doc = stored;
        input = { queue: doc, targets: input.targets };
      }
      facts = [];
      const effects = await this.runEffects(rt, doc);
      if (effects.retryAt !== null) retryAt = Math.min(retryAt ?? Infinity, effects.retryAt);
      if (effects.facts.length > 0) {
        facts = effects.facts;
        continue;
      }
      if (actions.length === 0) break;
    }

    const now = this.clock.now();
    const wake = nextWakeUp(input, now)?.getTime() ?? null;
    this.scheduleWakeUp(queueId, rt, minOrNull(wake, retryAt));
    this.prune(rt, doc);
  }

  /**
   * Facts that are due for a refresh: the target head, PR info of NOT_READY entries, statuses of runs
   * in flight, and what directMergeMode needs to know about the PR at the head of the queue.
   */
  private async dueFacts(rt: QueueRuntime, doc: QueueDoc): Promise<Fact[]> {
    const now = this.clock.now();
    const nowMs = now.getTime();
    const facts: Fact[] = [];
    const isDue = (last: number | undefined | null) => last === undefined || last === null || nowMs - last >= this.pollIntervalMs;

    let targetSha = doc.targetSha;
    if (this.gitHost.kind !== 'none' && isDue(rt.headCheckedAt)) {
      rt.headCheckedAt = nowMs;
      try {
        const head = await this.withRetry(() => this.gitHost.getBranchHead(doc.repo, doc.branch));
        if (head && head !== doc.targetSha) {
          targetSha = head;
          facts.push((q) => recordTargetHead(q, head, now));
        }
      } catch (err) {
        this.logger.warn({ err, queueId: doc.id }, 'could not read the head of the target branch');
      }
    }

    const refreshed: Entry[] = [];
    for (const entry of doc.entries) {
      if (entry.state !== 'NOT_READY' || !isDue(rt.prCheckedAt.get(entry.id))) continue;
      rt.prCheckedAt.set(entry.id, nowMs);
      if (this.gitHost.kind === 'none') {
        const info = unknownPullRequest(entry);
        facts.push((q) => recordPullRequest(q, info, now, NO_GIT_HOST_NOTE));
        continue;
      }
      refreshed.push(entry);
      try {
        const pr = await this.withRetry(() => this.gitHost.getPullRequest(doc.repo, entry.prNumber));
        facts.push((q) => recordPullRequest(q, pr, now, null, entry.prNumber));
      } catch (err) {
        this.logger.warn({ err, queueId: doc.id, pr: entry.prNumber }, 'could not read the pull request');
      }
      if (needsTargets(doc) && !entry.readiness.hasImpactedTargets && (await rt.targets.has(doc.repoKey, entry))) {
        facts.push((q) => recordImpactedTargets(q, entry.prNumber, entry.prSha));
      }
    }
    if (this.gitHost.kind === 'none') return facts;

    if (doc.settings.directMergeMode === 'always' && targetSha) {
      const headUnit = doc.units[0];
      const head = headUnit?.entryIds.length === 1 ? doc.entries.find((e) => e.id === headUnit.entryIds[0] && e.state === 'PENDING') : undefined;
      facts.push(...(await this.directMergeFacts(rt, doc, head ? [...refreshed, head] : refreshed, targetSha)));
    }

    for (const run of doc.runs) {
      if (run.status !== 'pending' || !run.testBranchSha) continue;
      const last = rt.statusPolledAt.get(run.id) ?? Date.parse(run.createdAt);
      if (!isDue(last)) continue;
      rt.statusPolledAt.set(run.id, nowMs);
      const sha = run.testBranchSha;
      try {
        const checks = await this.withRetry(() => this.gitHost.readStatuses(doc.repo, sha));
        if (checks.length > 0) facts.push((q) => recordStatusChecks(q, sha, checks, now));
      } catch (err) {
        this.logger.warn({ err, queueId: doc.id, runId: run.id }, 'could not read the statuses of a test branch');
      }
    }
    return facts;
  }

  /** Whether each PR head contains the target head and passed its own required checks (once per pair of heads). */
  private async directMergeFacts(rt: QueueRuntime, doc: QueueDoc, entries: Entry[], targetSha: string): Promise<Fact[]> {
    const headContains = this.gitHost.headContains?.bind(this.gitHost);
    if (!headContains) return [];
    const facts: Fact[] = [];
    let required: string[] | null = doc.settings.requiredStatuses;
    for (const entry of entries) {
      const key = `${entry.prSha}|${targetSha}`;
      if (rt.directChecked.get(entry.id) === key) continue;
      try {
        required ??= await this.withRetry(() => this.gitHost.requiredStatuses(doc.repo, doc.branch));
        const requiredNow = required;
        const checks = await this.withRetry(() => this.gitHost.readStatuses(doc.repo, entry.prSha));
        const contains = await this.withRetry(() => headContains(doc.repo, entry.prSha, targetSha));
        rt.directChecked.set(entry.id, key);
        const known = {
          containsTargetSha: contains ? targetSha : null,
          ownChecksPassedSha: requiredChecksPassed(requiredNow, checks) ? entry.prSha : null,
        };
        facts.push((q) => recordDirectMergeFacts(q, entry.id, entry.prSha, known));
      } catch (err) {
        this.logger.warn({ err, queueId: doc.id, pr: entry.prNumber }, 'could not check whether the pull request can merge directly');
      }
    }
    return facts;
  }

  /**
   * Carries out what the document asks for. Merges come first, strictly in queue order, and alone:
   * a new test branch is only built once the merges ahead of it are recorded, and a refused merge is
   * re-planned before anything else is merged.
   */
  private async runEffects(rt: QueueRuntime, doc: QueueDoc): Promise<EffectsOutcome> {
    const merges = mergesDue(doc);
    if (merges.length > 0) {
      const moved = await this.targetMovedOutside(doc);
      if (moved === undefined) return { facts: [], retryAt: this.clock.now().getTime() + this.effectRetryMs };
      if (moved !== null) return { facts: [(q) => recordTargetHead(q, moved, this.clock.now())], retryAt: null };
      const facts: Fact[] = [];
      for (const entry of merges) {
        const outcome = await this.merge(doc, entry);
        facts.push(outcome.fact);
        if (outcome.stop) break;
      }
      return { facts, retryAt: null };
    }

    const facts: Fact[] = [];
    let failed = false;
    const creating = runsToCreate(doc);
    let required: string[] | undefined;
    if (creating.length > 0 && doc.settings.requiredStatuses === null) {
      try {
        required = await this.withRetry(() => this.gitHost.requiredStatuses(doc.repo, doc.branch));
      } catch (err) {
        this.logger.warn({ err, queueId: doc.id }, 'could not read the required statuses; test branches wait');
        return { facts, retryAt: this.clock.now().getTime() + this.effectRetryMs };
      }
    }
    // Each run built is seen by the next one, which may then be built on its branch.
    let built = doc;
    for (const run of creating) {
      const fact = await this.createTestBranch(rt, built, run, required);
      if (fact) {
        facts.push(fact);
        built = fact(built);
      } else failed = true;
    }
    for (const run of runsToCleanUp(doc)) {
      try {
        await this.withRetry(() => this.gitHost.deleteBranch(doc.repo, testBranchName(doc.branch, run.id)));
        if (run.testBranchSha) this.shaToQueue.delete(run.testBranchSha);
        facts.push((q) => recordBranchDeleted(q, run.id));
      } catch (err) {
        failed = true;
        this.logger.warn({ err, queueId: doc.id, runId: run.id }, 'could not delete a test branch');
      }
    }
    return { facts, retryAt: failed ? this.clock.now().getTime() + this.effectRetryMs : null };
  }

  /**
   * Reads the target head before merging: a run merges only onto the base it tested plus the queue's
   * own merges. The head if it moved outside the queue, null if not, undefined if it could not be read.
   */
  private async targetMovedOutside(doc: QueueDoc): Promise<string | null | undefined> {
    let head: string | null;
    try {
      head = await this.withRetry(() => this.gitHost.getBranchHead(doc.repo, doc.branch));
    } catch (err) {
      this.logger.warn({ err, queueId: doc.id }, 'could not read the head of the target branch before merging; merges wait');
      return undefined;
    }
    if (head === null || lineageIndex(doc, head) >= 0) return null;
    return head;
  }

  private async createTestBranch(rt: QueueRuntime, doc: QueueDoc, run: TestRun, required: string[] | undefined): Promise<Fact | null> {
    const name = testBranchName(doc.branch, run.id);
    const startFrom = testBranchStart(doc, run);
    const spec: TestBranchSpec = {
      name,
      baseBranch: doc.branch,
      prs: run.prs.map((p) => ({ number: p.prNumber, sha: p.prSha })),
      ...(startFrom ? { startFrom } : {}),
      // Opened by the host once the branch exists, or found there after a crash; closed with the branch.
      ...(doc.settings.createPrsForTestingBranches ? { draftPullRequest: draftPullRequestFor(doc.branch, name, run) } : {}),
    };
    try {
      const result = await this.withRetry(() => this.gitHost.createTestBranch(doc.repo, spec));
      rt.createFailures.delete(run.id);
      if (!result.ok) return (q) => recordRunConflict(q, run.id, result.conflictPrNumber, this.clock.now());
      if (result.draftPullRequestError !== undefined) {
        // The run goes on without its draft PR (it is not tried again: the run is no longer `creating`).
        this.logger.warn({ queueId: doc.id, runId: run.id, error: result.draftPullRequestError }, 'could not open the draft pull request of a test branch');
      }
      this.shaToQueue.set(result.sha, doc.id);
      const created = { sha: result.sha, baseSha: result.baseSha, ...(required ? { requiredStatuses: required } : {}) };
      // A host that built elsewhere than asked read the target head: that is news of where it stands.
      const observed = result.baseSha === startFrom?.baseSha ? null : result.baseSha;
      return (q) => {
        const now = this.clock.now();
        const recorded = recordRunCreated(observed ? recordTargetHead(q, observed, now) : q, run.id, created, now);
        // Results that came before this record was written (webhooks are quick when CI is).
        const early = this.earlyChecks.get(result.sha);
        const withChecks = early ? recordStatusChecks(recorded, result.sha, [...early], now) : recorded;
        const tests = this.earlyTestResults.get(result.sha);
        return tests ? recordTestResults(withChecks, result.sha, [...tests], now) : withChecks;
      };
    } catch (err) {
      const failures = (rt.createFailures.get(run.id) ?? 0) + 1;
      rt.createFailures.set(run.id, failures);
      this.logger.warn({ err, queueId: doc.id, runId: run.id, failures }, 'could not create a test branch');
      if (failures < this.maxCreateFailures) return null;
      const dependencies = new Set(run.dependencyEntryIds);
      const own = run.prs.map((p) => p.entryId).filter((id) => !dependencies.has(id));
      const message = `the git host failed to create the test branch: ${describeError(err)}`;
      return (q) => failForGitHostError(q, own, message, this.clock.now());
    }
  }

  /** Merges one PR, unless an earlier attempt already did (a crash before it was recorded). */
  private async merge(doc: QueueDoc, entry: Entry): Promise<{ fact: Fact; stop: boolean }> {
    const intent = entry.mergeIntent!;
    const failed = (err: unknown) => {
      this.logger.error({ err, queueId: doc.id, pr: entry.prNumber }, 'the git host failed to merge a pull request');
      const message = `the git host failed to merge: ${describeError(err)}`;
      return { fact: (q: QueueDoc) => failForGitHostError(q, [entry.id], message, this.clock.now()), stop: true };
    };
    let pr: PullRequestInfo | null;
    try {
      pr = await this.withRetry(() => this.gitHost.getPullRequest(doc.repo, entry.prNumber));
    } catch (err) {
      return failed(err);
    }
    if (pr?.state === 'merged') {
      const sha = pr.mergeCommitSha ?? '';
      return { fact: (q) => recordMerged(q, entry.id, sha, this.clock.now()), stop: false };
    }
    if (!pr || pr.state !== 'open') {
      const info = pr;
      return { fact: (q) => recordPullRequest(q, info, this.clock.now(), null, entry.prNumber), stop: true };
    }
    try {
      const result = await this.withRetry(() =>
        this.gitHost.mergePullRequest(doc.repo, entry.prNumber, { expectedSha: intent.expectedSha, method: doc.settings.mergeMethod }),
      );
      if (result.ok) return { fact: (q) => recordMerged(q, entry.id, result.sha, this.clock.now()), stop: false };
      this.logger.info({ queueId: doc.id, pr: entry.prNumber, code: result.code }, 'the git host refused a merge');
      return { fact: (q) => recordMergeRefused(q, entry.id, result.code, result.message, this.clock.now()), stop: true };
    } catch (err) {
      // The request may have reached the host before it failed: look before failing the PR.
      const after = await this.gitHost.getPullRequest(doc.repo, entry.prNumber).catch(() => null);
      if (after?.state === 'merged') {
        const sha = after.mergeCommitSha ?? '';
        return { fact: (q) => recordMerged(q, entry.id, sha, this.clock.now()), stop: false };
      }
      return failed(err);
    }
  }

  // ---- Persistence ----

  /** Compare-and-set of `next` over `prev`, moving what is archivable out; null on a version conflict. */
  private async commit(rt: QueueRuntime, prev: QueueDoc, next: QueueDoc): Promise<QueueDoc | null> {
    const old = archivable(next);
    const entryIds = new Set(old.entries.map((e) => e.id));
    const runIds = new Set(old.runs.map((r) => r.id));
    const stored: QueueDoc = {
      ...next,
      version: prev.version + 1,
      entries: entryIds.size > 0 ? next.entries.filter((e) => !entryIds.has(e.id)) : next.entries,
      runs: runIds.size > 0 ? next.runs.filter((r) => !runIds.has(r.id)) : next.runs,
    };
    const archive = entryIds.size > 0 || runIds.size > 0 ? { entries: old.entries, runs: old.runs } : undefined;
    if (!(await this.store.commitQueue(stored, prev.version, archive))) return null;
    this.logTransitions(prev, next);
    this.reporter.offer(next);
    return stored;
  }

  /** Applies facts to the latest document and commits, reloading on conflicts; null if the queue is gone. */
  private async commitFacts(rt: QueueRuntime, doc: QueueDoc, facts: readonly Fact[]): Promise<QueueDoc | null> {
    let base: QueueDoc | null = doc;
    for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      if (!base) return null;
      let next = base;
      for (const fact of facts) next = fact(next);
      const stored = await this.commit(rt, base, next);
      if (stored) return stored;
      base = await this.store.getQueueById(base.id);
    }
    throw new Error(`queue ${doc.id}: ${MAX_CONFLICTS} commit conflicts in a row`);
  }

  // ---- Logging ----

  private logTransitions(prev: QueueDoc, next: QueueDoc): void {
    if (!this.logger.isLevelEnabled('info')) return;
    const before = new Map(prev.entries.map((e) => [e.id, e.state]));
    for (const entry of next.entries) {
      const from = before.get(entry.id);
      if (from === entry.state) continue;
      this.logger.info(
        { queueId: next.id, repo: next.repoKey, branch: next.branch, pr: entry.prNumber, from: from ?? null, to: entry.state, reason: entry.reason?.code },
        'pull request state changed',
      );
    }
  }

  // ---- Helpers ----

  private withRetry<T>(fn: () => Promise<T>): Promise<T> {
    return withRetry(fn, this.retryPolicy, this.scheduler);
  }

  private runtime(queueId: string): QueueRuntime {
    let rt = this.queues.get(queueId);
    if (!rt) {
      rt = {
        chain: Promise.resolve(),
        notifyPending: false,
        wakeTimer: null,
        wakeAt: null,
        prCheckedAt: new Map(),
        statusPolledAt: new Map(),
        headCheckedAt: null,
        directChecked: new Map(),
        createFailures: new Map(),
        targets: new QueueTargets(this.store),
      };
      this.queues.set(queueId, rt);
    }
    return rt;
  }

  private exclusive(rt: QueueRuntime, fn: () => Promise<void>): Promise<void> {
    const run = rt.chain.then(fn);
    rt.chain = run.catch(() => undefined);
    return run;
  }

  private track(promise: Promise<unknown>): void {
    this.inflight.add(promise);
    void promise.finally(() => this.inflight.delete(promise));
  }

  /** The queue is gone (deleted): nothing of it is kept. */
  private forget(queueId: string): void {
    const rt = this.queues.get(queueId);
    rt?.wakeTimer?.cancel();
    this.queues.delete(queueId);
    for (const [sha, id] of this.shaToQueue) if (id === queueId) this.shaToQueue.delete(sha);
  }

  /** How many queues the engine keeps state for in memory (deleted queues are forgotten). */
  get queuesInMemory(): number {
    return this.queues.size;
  }

  /** Drops in-memory notes about entries and runs that left the document. */
  private prune(rt: QueueRuntime, doc: QueueDoc): void {
    const notReady = new Set(doc.entries.filter((e) => e.state === 'NOT_READY').map((e) => e.id));
    const entryIds = new Set(doc.entries.map((e) => e.id));
    const pending = new Set(doc.runs.filter((r) => r.status === 'pending').map((r) => r.id));
    const creating = new Set(doc.runs.filter((r) => r.status === 'creating').map((r) => r.id));
    for (const id of rt.prCheckedAt.keys()) if (!notReady.has(id)) rt.prCheckedAt.delete(id);
    for (const id of rt.directChecked.keys()) if (!entryIds.has(id)) rt.directChecked.delete(id);
    for (const id of rt.statusPolledAt.keys()) if (!pending.has(id)) rt.statusPolledAt.delete(id);
    for (const id of rt.createFailures.keys()) if (!creating.has(id)) rt.createFailures.delete(id);
  }
}

/** The queue of these whose run tests the commit `sha` (a test branch head), if any. */
function queueTestingIn(queues: readonly QueueDoc[], sha: string): string | null {
  return queues.find((q) => q.runs.some((r) => r.testBranchSha === sha))?.id ?? null;
}

function needsPolling(queue: QueueDoc): boolean {
  return queue.entries.some((e) => e.state === 'NOT_READY') || queue.runs.some((r) => r.status === 'pending' || r.status === 'creating');
}

/** What is known of a PR when no git host is configured: only what the entry says. */
function unknownPullRequest(entry: Entry): PullRequestInfo {
  return {
    number: entry.prNumber,
    title: entry.prTitle,
    headSha: entry.prSha,
    baseBranch: entry.prBaseBranch,
    author: entry.prAuthor,
    state: 'open',
    draft: false,
    mergeability: 'UNSPECIFIED',
    mergeCommitSha: null,
  };
}

function minOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

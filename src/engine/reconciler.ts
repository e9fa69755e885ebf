import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { QueueDoc } from '../domain/queue.js';
import type { TargetSet } from '../domain/targets.js';
import { applyActions, nextWakeUp, plan, type PlanInput } from '../planner/index.js';
import type { QueueStore } from '../store/store.js';
import type { Actuator } from './actuation.js';
import { applyFacts, type Fact } from './fact.js';
import type { GitHostObserver } from './observation.js';
import { MAX_COMMIT_CONFLICTS, type CommitOptions, type Committed, type QueueCommitter } from '../queue-docs/queue-committer.js';
import type { QueueLease } from './queue-lease.js';
import { needsTargets } from './queue-targets.js';
import { pruneRuntime, type PendingFact, type QueueRuntime } from './queue-runtime.js';

/** Plan/execute rounds within one reconcile before it gives up (a planner that never settles). */
const MAX_ROUNDS = 200;

const NO_TARGETS: ReadonlyMap<string, TargetSet> = new Map();

export interface ReconcilerOptions {
  store: { queues: QueueStore };
  committer: QueueCommitter;
  lease: QueueLease;
  observer: GitHostObserver;
  actuator: Actuator;
  clock: Clock;
  logger: Logger;
  effectRetryMs: number;
  /** Called with each committed change (reports, transition logs). */
  onCommitted: (prev: QueueDoc, next: QueueDoc) => void;
  /** Called with the document as loaded, before anything is done. */
  onLoaded: (doc: QueueDoc) => void;
}

/** How a reconcile ended: the queue is gone, or when it wants to run again (epoch ms, or null). */
export type ReconcileOutcome = { gone: true } | { gone: false; wakeAt: number | null };

/**
 * The reconciler (level-triggered): take the queue's lease, load it, refresh the facts that are due,
 * plan, persist with compare-and-set, carry out the side effects the persisted document expresses,
 * record their outcomes as facts, and repeat until nothing is left to do.
 */
export class Reconciler {
  constructor(private readonly o: ReconcilerOptions) {}

  async reconcile(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[] = []): Promise<ReconcileOutcome> {
    try {
      return await this.reconcileLeased(queueId, rt, initialFacts);
    } catch (err) {
      // The facts waiting for this reconcile are not recorded: their callers hear of it.
      for (const pending of rt.pendingFacts.splice(0)) pending.failed(err);
      throw err;
    }
  }

  private async reconcileLeased(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[]): Promise<ReconcileOutcome> {
    const lease = await this.o.lease.take(queueId);
    // Another replica is at work on this queue: only what was learnt here is recorded.
    if (!lease.held) return this.recordOnly(queueId, rt, initialFacts, lease.retryAt);
    try {
      return await this.reconcileHeld(queueId, rt, initialFacts);
    } finally {
      await this.o.lease.release(queueId).catch((err: unknown) => this.o.logger.warn({ err, queueId }, 'could not release the lease of a queue'));
    }
  }

  /**
   * One reconcile under the lease. Each round applies the facts learnt so far (with those that came
   * from outside meanwhile) and the plan they lead to in one commit, then carries out the side
   * effects that the committed document asks for; their outcomes are the facts of the next round.
   * Side effects only ever follow from a committed document, and only while the lease is ours.
   */
  private async reconcileHeld(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[]): Promise<ReconcileOutcome> {
    const { store, clock, logger } = this.o;
    const reload = () => store.queues.getQueueById(queueId);
    const loaded = await reload();
    if (!loaded) return { gone: true };
    let doc: QueueDoc = loaded;
    this.o.onLoaded(doc);

    // Refresh what is due in the document as the given facts leave it (e.g. PRs they just submitted).
    let facts: Fact[] = [...initialFacts, ...(await this.o.observer.dueFacts(rt, applyFacts(doc, initialFacts)))];
    let input: PlanInput = { queue: doc, targets: NO_TARGETS };
    let retryAt: number | null = null;
    let leaseLost = false;
    const mayAct = async () => {
      leaseLost ||= !(await this.o.lease.keep(queueId));
      return !leaseLost;
    };
    for (let round = 0; ; round++) {
      if (round === MAX_ROUNDS) {
        logger.error({ queueId, branch: doc.branch, churning: churningEntries(loaded, doc) }, 'reconcile did not settle; continuing at the next wake-up');
        retryAt = clock.now().getTime() + this.o.effectRetryMs;
        break;
      }
      const pending = rt.pendingFacts.splice(0);
      const roundFacts = [...facts, ...pending.map((p) => p.fact)];
      const committed: Committed<number> | null = await settling(pending, () =>
        this.o.committer.update(
          doc,
          reload,
          async (current) => {
            const now = clock.now();
            let next = applyFacts(current, roundFacts);
            input = { queue: next, targets: needsTargets(next) ? await rt.targets.load(next) : NO_TARGETS };
            const actions = plan(input, now);
            if (actions.length > 0) next = applyActions(next, actions, now);
            return next === current ? { unchanged: true, result: actions.length } : { queue: next, result: actions.length };
          },
          { ...this.commitOptions(queueId), onCommitted: this.o.onCommitted },
        ),
      );
      if (!committed) return { gone: true };
      if (committed.changed) input = { queue: committed.queue, targets: input.targets };
      doc = committed.queue;
      const effects = await this.o.actuator.runEffects(rt, doc, mayAct);
      if (effects.retryAt !== null) retryAt = Math.min(retryAt ?? Infinity, effects.retryAt);
      facts = effects.facts;
      if (leaseLost) {
        // Another replica took the queue over (this one was too slow to renew): it carries on from
        // what was committed; what the last effects did is read again from the git host.
        logger.warn({ queueId }, 'lost the lease of a queue while reconciling it');
        return { gone: false, wakeAt: clock.now().getTime() };
      }
      if (facts.length > 0 || rt.pendingFacts.length > 0) continue;
      if (committed.result === 0) break;
    }

    const wake = nextWakeUp(input, clock.now())?.getTime() ?? null;
    pruneRuntime(rt, doc);
    return { gone: false, wakeAt: minOrNull(wake, retryAt) };
  }

  /** Without the lease: the facts from outside are committed on their own; the holder plans with them. */
  private async recordOnly(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[], retryAt: number): Promise<ReconcileOutcome> {
    const pending = rt.pendingFacts.splice(0);
    const facts = [...initialFacts, ...pending.map((p) => p.fact)];
    if (facts.length === 0) return { gone: false, wakeAt: retryAt };
    const committed = await settling(pending, () =>
      this.o.committer.update(
        null,
        () => this.o.store.queues.getQueueById(queueId),
        (q) => {
          const next = applyFacts(q, facts);
          return next === q ? { unchanged: true, result: null } : { queue: next, result: null };
        },
        this.commitOptions(queueId),
      ),
    );
    return committed ? { gone: false, wakeAt: retryAt } : { gone: true };
  }

  private commitOptions(queueId: string): CommitOptions {
    return { archive: true, tooBusy: () => new Error(`queue ${queueId}: ${MAX_COMMIT_CONFLICTS} commit conflicts in a row`) };
  }
}

/** Runs the commit that records `pending`, and tells their callers how it went. */
async function settling<T>(pending: readonly PendingFact[], commit: () => Promise<T | null>): Promise<T | null> {
  try {
    const committed = await commit();
    for (const p of pending) p.recorded(committed !== null);
    return committed;
  } catch (err) {
    for (const p of pending) p.failed(err);
    throw err;
  }
}

/** The PRs whose state changed most during a reconcile that did not settle, with their last reason. */
function churningEntries(before: QueueDoc, after: QueueDoc): { pr: number; transitions: number; reason: string }[] {
  const was = new Map(before.entries.map((e) => [e.id, e.history.length]));
  return after.entries
    .map((e) => ({ pr: e.prNumber, transitions: e.history.length - (was.get(e.id) ?? 0), reason: e.reason?.message ?? '' }))
    .filter((c) => c.transitions > 0)
    .sort((a, b) => b.transitions - a.transitions)
    .slice(0, 5);
}

function minOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

import type { Logger } from 'pino';
import type { QueueDoc } from '../domain/queue.js';
import type { TargetSet } from '../domain/targets.js';
import { applyActions, nextWakeUp, plan, type PlanInput } from '../planner/index.js';
import type { Store } from '../store/store.js';
import type { Actuator } from './actuation.js';
import type { Clock } from '../domain/clock.js';
import { applyFacts, type Fact } from './fact.js';
import type { GitHostObserver } from './observation.js';
import type { Committed, QueueCommitter } from './queue-committer.js';
import { needsTargets } from './queue-targets.js';
import { pruneRuntime, type QueueRuntime } from './queue-runtime.js';

/** Plan/execute rounds within one reconcile before it gives up (a planner that never settles). */
const MAX_ROUNDS = 200;
/** Compare-and-set conflicts in a row before a commit gives up. */
const MAX_CONFLICTS = 20;

const NO_TARGETS: ReadonlyMap<string, TargetSet> = new Map();

export interface ReconcilerOptions {
  store: Store;
  committer: QueueCommitter;
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
 * The reconciler (level-triggered): load a queue, refresh the facts that are due, plan, persist with
 * compare-and-set, carry out the side effects the persisted document expresses, record their
 * outcomes as facts, and repeat until nothing is left to do.
 */
export class Reconciler {
  constructor(private readonly o: ReconcilerOptions) {}

  /**
   * One reconcile. Each round applies the facts learnt so far and the plan they lead to in one
   * commit, then carries out the side effects that the committed document asks for; their outcomes
   * are the facts of the next round. Side effects only ever follow from a committed document.
   */
  async reconcile(queueId: string, rt: QueueRuntime, initialFacts: readonly Fact[] = []): Promise<ReconcileOutcome> {
    const { store, clock, logger } = this.o;
    const reload = () => store.getQueueById(queueId);
    const loaded = await reload();
    if (!loaded) return { gone: true };
    let doc: QueueDoc = loaded;
    this.o.onLoaded(doc);

    // Refresh what is due in the document as the given facts leave it (e.g. PRs they just submitted).
    let facts: Fact[] = [...initialFacts, ...(await this.o.observer.dueFacts(rt, applyFacts(doc, initialFacts)))];
    let input: PlanInput = { queue: doc, targets: NO_TARGETS };
    let retryAt: number | null = null;
    for (let round = 0; ; round++) {
      if (round === MAX_ROUNDS) {
        logger.error({ queueId, branch: doc.branch }, 'reconcile did not settle; continuing at the next wake-up');
        retryAt = clock.now().getTime() + this.o.effectRetryMs;
        break;
      }
      const roundFacts = facts;
      const committed: Committed<number> | null = await this.o.committer.update(
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
        {
          archive: true,
          maxConflicts: MAX_CONFLICTS,
          tooBusy: () => new Error(`queue ${queueId}: ${MAX_CONFLICTS} commit conflicts in a row`),
          onCommitted: this.o.onCommitted,
        },
      );
      if (!committed) return { gone: true };
      if (committed.changed) input = { queue: committed.queue, targets: input.targets };
      doc = committed.queue;
      const effects = await this.o.actuator.runEffects(rt, doc, () => Promise.resolve(true));
      if (effects.retryAt !== null) retryAt = Math.min(retryAt ?? Infinity, effects.retryAt);
      facts = effects.facts;
      if (facts.length > 0) continue;
      if (committed.result === 0) break;
    }

    const wake = nextWakeUp(input, clock.now())?.getTime() ?? null;
    pruneRuntime(rt, doc);
    return { gone: false, wakeAt: minOrNull(wake, retryAt) };
  }
}

function minOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

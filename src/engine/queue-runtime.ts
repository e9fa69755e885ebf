import type { QueueDoc } from '../domain/queue.js';
import type { TargetStore } from '../store/store.js';
import type { Fact } from './fact.js';
import { QueueTargets } from './queue-targets.js';
import type { TimerHandle } from '../domain/scheduler.js';

/** A fact from outside waiting for the next commit of a reconcile; told whether it was recorded. */
export interface PendingFact {
  fact: Fact;
  /** Committed (true), or the queue is gone (false). */
  recorded: (stored: boolean) => void;
  failed: (err: unknown) => void;
}

/**
 * What the engine keeps in memory per queue; all of it can be lost (a restart rebuilds it, and the
 * callers of pending facts were not answered yet).
 */
export interface QueueRuntime {
  notifyPending: boolean;
  /** Facts from outside (CI results, webhooks) that the reconcile's next commit records. */
  pendingFacts: PendingFact[];
  wakeTimer: TimerHandle | null;
  /** Reconciles failed in a row, and the timer of the next try (reconcile-backoff.ts). */
  failedReconciles: number;
  retryTimer: TimerHandle | null;
  /** The last reconcile's wall time and end (performance.now()), for giving way to the doors. */
  lastReconcile: { ms: number; endedAt: number } | null;
  wakeAt: number | null;
  prCheckedAt: Map<string, number>;
  statusPolledAt: Map<string, number>;
  headCheckedAt: number | null;
  /** Entry -> `prSha|targetSha` last checked for directMergeMode. */
  directChecked: Map<string, string>;
  createFailures: Map<string, number>;
  targets: QueueTargets;
}

export function newQueueRuntime(targets: TargetStore): QueueRuntime {
  return {
    notifyPending: false,
    pendingFacts: [],
    wakeTimer: null,
    failedReconciles: 0,
    retryTimer: null,
    lastReconcile: null,
    wakeAt: null,
    prCheckedAt: new Map(),
    statusPolledAt: new Map(),
    headCheckedAt: null,
    directChecked: new Map(),
    createFailures: new Map(),
    targets: new QueueTargets(targets),
  };
}

/** Drops in-memory notes about entries and runs that left the document. */
export function pruneRuntime(rt: QueueRuntime, doc: QueueDoc): void {
  const notReady = new Set(doc.entries.filter((e) => e.state === 'NOT_READY').map((e) => e.id));
  const entryIds = new Set(doc.entries.map((e) => e.id));
  const pending = new Set(doc.runs.filter((r) => r.status === 'pending').map((r) => r.id));
  const creating = new Set(doc.runs.filter((r) => r.status === 'creating').map((r) => r.id));
  for (const id of rt.prCheckedAt.keys()) if (!notReady.has(id)) rt.prCheckedAt.delete(id);
  for (const id of rt.directChecked.keys()) if (!entryIds.has(id)) rt.directChecked.delete(id);
  for (const id of rt.statusPolledAt.keys()) if (!pending.has(id)) rt.statusPolledAt.delete(id);
  for (const id of rt.createFailures.keys()) if (!creating.has(id)) rt.createFailures.delete(id);
}

import type { Logger } from 'pino';
import type { QueueDoc } from '../domain/queue.js';
import type { TargetSet } from '../domain/targets.js';
import { nextWakeUp } from '../planner/index.js';
import type { QueueStore, TargetStore } from '../store/store.js';
import type { Clock } from '../domain/clock.js';
import type { Fact } from './fact.js';
import { KeyedLock } from '../queue-docs/keyed-lock.js';
import { retryDelayMs } from './reconcile-backoff.js';
import { newQueueRuntime, type QueueRuntime } from './queue-runtime.js';
import type { ReconcileOutcome } from './reconciler.js';
import type { Scheduler, TimerHandle } from '../domain/scheduler.js';
import { isInFlight } from '../domain/run.js';

const NO_TARGETS: ReadonlyMap<string, TargetSet> = new Map();

/**
 * A notified reconcile gives way to the doors (API calls, webhooks) of a deep queue: after one that
 * took d ms, the next one starts no sooner than YIELD_FACTOR·d ms after it ended, at most
 * MAX_YIELD_MS later. A reconcile is one synchronous stretch of planning over the whole queue; without
 * this, a client submitting one PR after another into a queue of thousands waits for one after each
 * call. Reconciles of a few milliseconds (most queues) never wait.
 */
const YIELD_FACTOR = 2;
const YIELD_FROM_MS = 3;
const MAX_YIELD_MS = 200;

export interface WorkerOptions {
  store: { queues: QueueStore; targets: TargetStore };
  clock: Clock;
  scheduler: Scheduler;
  logger: Logger;
  pollIntervalMs: number;
  reconcile: (queueId: string, rt: QueueRuntime, facts: readonly Fact[]) => Promise<ReconcileOutcome>;
  /** Told the wall time of every reconcile, finished or failed. */
  onReconciled?: (queueId: string, seconds: number) => void;
  /** The queue is gone: whatever else is kept about it can go too. */
  onForget: (queueId: string) => void;
}

/**
 * The worker: turns notifications, wake-ups and polling into reconciles, one at a time per queue
 * (the per-queue lock), many notifications while one runs coalescing into one more run.
 */
export class QueueWorker {
  private readonly queues = new Map<string, QueueRuntime>();
  private readonly lock = new KeyedLock();
  private readonly inflight = new Set<Promise<unknown>>();
  private started = false;
  private stopped = false;
  private pollTimer: TimerHandle | null = null;
  private lastTick: Date | null = null;

  constructor(private readonly o: WorkerOptions) {}

  /** Asks for a reconcile of the queue soon. Many calls while one runs coalesce into one more run. */
  notify(queueId: string): void {
    if (this.stopped) return;
    const rt = this.runtime(queueId);
    if (rt.notifyPending) return;
    rt.notifyPending = true;
    const run = this.lock
      .run(queueId, async () => {
        await giveWay(rt);
        rt.notifyPending = false;
        await this.reconcileNow(queueId, rt, []);
      })
      // Logged and retried by reconcileNow (retryAfterFailure).
      .catch(() => undefined);
    this.track(run);
  }

  /** Reconciles the queue now (after any reconcile of it under way); errors reach the caller. */
  reconcile(queueId: string, facts: readonly Fact[]): Promise<void> {
    const rt = this.runtime(queueId);
    const run = this.lock.run(queueId, () => this.reconcileNow(queueId, rt, facts));
    this.track(run.catch(() => undefined));
    return run;
  }

  /** Resolves when the reconciles of the queue queued now are done. */
  idle(queueId: string): Promise<void> {
    return this.lock.idle(queueId);
  }

  get busy(): boolean {
    return this.inflight.size > 0;
  }

  async settle(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  track(promise: Promise<unknown>): void {
    this.inflight.add(promise);
    void promise.finally(() => this.inflight.delete(promise));
  }

  runtime(queueId: string): QueueRuntime {
    let rt = this.queues.get(queueId);
    if (!rt) {
      rt = newQueueRuntime(this.o.store.targets);
      this.queues.set(queueId, rt);
    }
    return rt;
  }

  runtimes(): Iterable<QueueRuntime> {
    return this.queues.values();
  }

  wakeUpAt(queueId: string): number | null {
    return this.queues.get(queueId)?.wakeAt ?? null;
  }

  get size(): number {
    return this.queues.size;
  }

  /** Reconciles every queue once (catching up after a restart), then polls and honours wake-ups. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.pollTick(true);
  }

  /** Stops the timers; reconciles under way finish (see `settle`). */
  stop(): void {
    this.stopped = true;
    this.pollTimer?.cancel();
    this.pollTimer = null;
    for (const rt of this.queues.values()) {
      rt.wakeTimer?.cancel();
      rt.wakeTimer = null;
      rt.retryTimer?.cancel();
      rt.retryTimer = null;
    }
  }

  private async reconcileNow(queueId: string, rt: QueueRuntime, facts: readonly Fact[]): Promise<void> {
    const started = performance.now();
    let outcome: ReconcileOutcome;
    try {
      outcome = await this.o.reconcile(queueId, rt, facts);
    } catch (err) {
      this.retryAfterFailure(queueId, rt, err);
      throw err;
    } finally {
      const ended = performance.now();
      rt.lastReconcile = { ms: ended - started, endedAt: ended };
      this.o.onReconciled?.(queueId, (ended - started) / 1000);
    }
    if (rt.failedReconciles > 0) {
      this.o.logger.debug({ queueId, failures: rt.failedReconciles }, 'reconcile succeeded again');
      rt.failedReconciles = 0;
    }
    if (outcome.gone) this.forget(queueId);
    else this.scheduleWakeUp(queueId, rt, outcome.wakeAt);
  }

  /** Tries again with backoff (reconcile-backoff.ts); logs the first failure of a streak only. */
  private retryAfterFailure(queueId: string, rt: QueueRuntime, err: unknown): void {
    rt.failedReconciles++;
    if (rt.failedReconciles === 1) this.o.logger.error({ err, queueId }, 'reconcile failed; retrying with backoff until it succeeds');
    rt.retryTimer?.cancel();
    rt.retryTimer = null;
    if (!this.started || this.stopped) return;
    rt.retryTimer = this.o.scheduler.schedule(retryDelayMs(rt.failedReconciles), () => {
      rt.retryTimer = null;
      this.notify(queueId);
    });
  }

  private pollTick(all: boolean): void {
    if (this.stopped) return;
    const now = this.o.clock.now();
    const since = this.lastTick ?? now;
    this.lastTick = now;
    const tick = this.o.store.queues
      .listQueues({})
      .then((queues) => {
        for (const q of queues) if (all || needsPolling(q) || wakeUpCameDue(q, since, now)) this.notify(q.id);
      })
      .catch((err: unknown) => this.o.logger.error({ err }, 'polling the queues failed'));
    this.track(tick);
    if (Number.isFinite(this.o.pollIntervalMs)) this.pollTimer = this.o.scheduler.schedule(this.o.pollIntervalMs, () => this.pollTick(false));
  }

  private scheduleWakeUp(queueId: string, rt: QueueRuntime, at: number | null): void {
    rt.wakeAt = at;
    rt.wakeTimer?.cancel();
    rt.wakeTimer = null;
    if (at === null || !this.started || this.stopped) return;
    rt.wakeTimer = this.o.scheduler.schedule(at - this.o.clock.now().getTime(), () => {
      rt.wakeTimer = null;
      this.notify(queueId);
    });
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The queue is gone (deleted): nothing of it is kept. */
  private forget(queueId: string): void {
    const rt = this.queues.get(queueId);
    rt?.wakeTimer?.cancel();
    rt?.retryTimer?.cancel();
    for (const pending of rt?.pendingFacts.splice(0) ?? []) pending.recorded(false);
    this.queues.delete(queueId);
    this.o.onForget(queueId);
  }
}

/**
 * Whether the planner wanted to act on the queue at a time in (since, now]. The wake-up timer is
 * kept by the replica that last reconciled the queue; if that one died, the others' polling sees it.
 */
function wakeUpCameDue(queue: QueueDoc, since: Date, now: Date): boolean {
  const at = nextWakeUp({ queue, targets: NO_TARGETS }, since);
  return at !== null && at.getTime() <= now.getTime();
}

function needsPolling(queue: QueueDoc): boolean {
  return queue.entries.some((e) => e.state === 'NOT_READY') || queue.runs.some(isInFlight);
}

/** Waits as YIELD_FACTOR says. Real time, not the engine's clock: it shares this process's CPU. */
async function giveWay(rt: QueueRuntime): Promise<void> {
  const last = rt.lastReconcile;
  if (!last || last.ms < YIELD_FROM_MS) return;
  const wait = Math.min(MAX_YIELD_MS, YIELD_FACTOR * last.ms) - (performance.now() - last.endedAt);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

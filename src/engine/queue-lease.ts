import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Scheduler, TimerHandle } from '../domain/scheduler.js';
import type { LeaseStore } from '../store/store.js';

/** How soon a replica that found a queue's lease held looks again (the holder usually releases it sooner). */
const BUSY_RETRY_MS = 1_000;

export interface QueueLeaseOptions {
  leases: LeaseStore;
  clock: Clock;
  scheduler: Scheduler;
  logger: Logger;
  /** This process, as lease holder. */
  holder: string;
  /** How long a lease lasts unless renewed: how long a replica that died holding it keeps its queues waiting. */
  leaseMs: number;
}

export type LeaseAnswer = { held: true } | { held: false; retryAt: number };

interface Held {
  takenAt: number;
  lost: boolean;
  heartbeat: TimerHandle | null;
  /** A renewal under way: a release waits for it, or the renewal could take the lease back after. */
  renewing: Promise<void> | null;
}

/**
 * The per-queue lease across replicas sharing a store: a reconcile takes it before it acts, it is
 * renewed every third of its time while the reconcile works (a git host call may take longer than
 * the lease: retries, throttled writes), and given up when done. A replica that dies holding it holds
 * it only until it expires; then another takes the queue over.
 */
export class QueueLease {
  private readonly held = new Map<string, Held>();

  constructor(private readonly o: QueueLeaseOptions) {}

  async take(queueId: string): Promise<LeaseAnswer> {
    this.stopHeartbeat(queueId);
    const now = this.o.clock.now().getTime();
    const lease = await this.o.leases.takeLease(leaseName(queueId), this.o.holder, now, now + this.o.leaseMs);
    if (lease.holder !== this.o.holder) return { held: false, retryAt: Math.min(lease.expiresAt, now + BUSY_RETRY_MS) };
    const held: Held = { takenAt: now, lost: false, heartbeat: null, renewing: null };
    this.held.set(queueId, held);
    this.scheduleHeartbeat(queueId, held);
    return { held: true };
  }

  /** Whether this process still holds the lease (renewing it now when a heartbeat is overdue). */
  async keep(queueId: string): Promise<boolean> {
    const held = this.held.get(queueId);
    if (!held || held.lost) return false;
    if (this.o.clock.now().getTime() - held.takenAt >= this.o.leaseMs / 3) await this.renew(queueId, held);
    return !held.lost;
  }

  async release(queueId: string): Promise<void> {
    const held = this.held.get(queueId);
    if (!held) return;
    this.stopHeartbeat(queueId);
    await held.renewing;
    await this.o.leases.releaseLease(leaseName(queueId), this.o.holder);
  }

  private renew(queueId: string, held: Held): Promise<void> {
    held.renewing ??= (async () => {
      const now = this.o.clock.now().getTime();
      try {
        const lease = await this.o.leases.takeLease(leaseName(queueId), this.o.holder, now, now + this.o.leaseMs);
        if (lease.holder === this.o.holder) held.takenAt = now;
        else held.lost = true;
      } catch (err) {
        // Not renewed: it may run out, so nothing more is done under it.
        held.lost = true;
        this.o.logger.warn({ err, queueId }, 'could not renew the lease of a queue');
      } finally {
        held.renewing = null;
      }
      if (this.held.get(queueId) === held && !held.lost) this.scheduleHeartbeat(queueId, held);
    })();
    return held.renewing;
  }

  private scheduleHeartbeat(queueId: string, held: Held): void {
    held.heartbeat?.cancel();
    held.heartbeat = this.o.scheduler.schedule(this.o.leaseMs / 3, () => {
      held.heartbeat = null;
      if (this.held.get(queueId) === held) void this.renew(queueId, held);
    });
  }

  /** Forgets the lease here (no more renewals); the caller releases it or lets it run out. */
  private stopHeartbeat(queueId: string): void {
    const held = this.held.get(queueId);
    if (!held) return;
    held.heartbeat?.cancel();
    held.lost = true;
    this.held.delete(queueId);
  }
}

function leaseName(queueId: string): string {
  return `queue:${queueId}`;
}

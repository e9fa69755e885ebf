import type { Clock } from '../domain/clock.js';
import type { LeaseStore } from '../store/lease-store.js';

/** How soon a replica that found a queue's lease held looks again (the holder usually releases it sooner). */
const BUSY_RETRY_MS = 1_000;

export interface QueueLeaseOptions {
  leases: LeaseStore;
  clock: Clock;
  /** This process, as lease holder. */
  holder: string;
  /** How long a lease lasts unless renewed: how long a replica that died holding it keeps its queues waiting. */
  leaseMs: number;
}

export type LeaseAnswer = { held: true } | { held: false; retryAt: number };

/**
 * The per-queue lease across replicas sharing a store: a reconcile takes it before it acts, renews
 * it while it works, and gives it up when done. A replica that dies holding it holds it only until it
 * expires; then another takes the queue over.
 */
export class QueueLease {
  /** Queue -> when this process last took or renewed its lease (epoch ms). */
  private readonly takenAt = new Map<string, number>();

  constructor(private readonly o: QueueLeaseOptions) {}

  async take(queueId: string): Promise<LeaseAnswer> {
    const now = this.o.clock.now().getTime();
    const lease = await this.o.leases.takeLease(leaseName(queueId), this.o.holder, now, now + this.o.leaseMs);
    if (lease.holder === this.o.holder) {
      this.takenAt.set(queueId, now);
      return { held: true };
    }
    this.takenAt.delete(queueId);
    return { held: false, retryAt: Math.min(lease.expiresAt, now + BUSY_RETRY_MS) };
  }

  /**
   * Whether this process still holds the lease, renewing it once a third of its time has passed (so
   * a renewal is a write every few effects at most, and there is time for it to land).
   */
  async keep(queueId: string): Promise<boolean> {
    const takenAt = this.takenAt.get(queueId);
    if (takenAt === undefined) return false;
    if (this.o.clock.now().getTime() - takenAt < this.o.leaseMs / 3) return true;
    return (await this.take(queueId)).held;
  }

  async release(queueId: string): Promise<void> {
    if (!this.takenAt.delete(queueId)) return;
    await this.o.leases.releaseLease(leaseName(queueId), this.o.holder);
  }
}

function leaseName(queueId: string): string {
  return `queue:${queueId}`;
}

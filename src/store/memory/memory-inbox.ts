import type { InboxDelivery, InboxStore } from '../inbox-store.js';

/** The GitHub webhook inbox in memory (the simulator, tests); copies in and out like the other tables. */
export class MemoryInbox implements InboxStore {
  private readonly rows = new Map<string, InboxDelivery>();

  async acceptInbound(delivery: InboxDelivery): Promise<boolean> {
    const stored = this.rows.get(delivery.id);
    if (stored && stored.status !== 'failed') return false;
    this.rows.set(delivery.id, stored ? { ...stored, name: delivery.name, payload: delivery.payload, status: 'pending', attempts: 0, nextAttemptAt: delivery.nextAttemptAt, lastError: null } : { ...delivery });
    return true;
  }

  async dueInbound(now: string, limit: number): Promise<InboxDelivery[]> {
    return [...this.rows.values()]
      .filter((d) => d.status === 'pending' && d.nextAttemptAt <= now)
      .sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt) || a.receivedAt.localeCompare(b.receivedAt))
      .slice(0, limit)
      .map((d) => ({ ...d }));
  }

  async claimInbound(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    const stored = this.rows.get(id);
    if (!stored || stored.status !== 'pending' || stored.nextAttemptAt !== expectedNextAttemptAt) return false;
    stored.nextAttemptAt = until;
    return true;
  }

  async putInbound(delivery: InboxDelivery): Promise<void> {
    const stored = this.rows.get(delivery.id);
    if (stored) this.rows.set(delivery.id, { ...delivery, receivedAt: stored.receivedAt });
  }

  async pruneInbound(before: string): Promise<number> {
    let pruned = 0;
    for (const [id, d] of this.rows) {
      if (d.status !== 'pending' && d.receivedAt < before && this.rows.delete(id)) pruned++;
    }
    return pruned;
  }
}

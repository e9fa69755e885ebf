import type { OutboxEvent } from '../../events/event-types.js';
import { fieldsHold } from '../fields-hold.js';
import { eventsToKeep, type DeliveryFilter, type FannedOutEvent, type OutboundDelivery, type OutboxStore, type StoredEvent, type WebhookSubscription } from '../outbox-store.js';

const copy = <T>(value: T): T => structuredClone(value);

/** The outbound-webhook role in memory, with the contract of the SQLite table (outbox-table.ts). */
export class MemoryOutbox implements OutboxStore {
  private readonly events = new Map<string, StoredEvent & { dispatched: boolean }>();
  private readonly subscriptions = new Map<string, WebhookSubscription>();
  private readonly deliveries = new Map<string, OutboundDelivery>();
  private seq = 0;

  /** Repeating an event id is ignored. */
  insertEvents(events: readonly OutboxEvent[] | undefined): void {
    if (!events?.length) return;
    const listening = (orgId: string) => [...this.subscriptions.values()].some((s) => s.orgId === orgId && s.enabled);
    // Not copied: events are built fresh for each commit and never changed after (as queue documents here).
    for (const e of eventsToKeep(events, listening)) if (!this.events.has(e.id)) this.events.set(e.id, { ...e, seq: ++this.seq, dispatched: false });
  }

  async insertSubscription(s: WebhookSubscription): Promise<void> {
    if (this.subscriptions.has(s.id)) throw new Error(`subscription ${s.id} exists`);
    this.subscriptions.set(s.id, copy(s));
  }

  async getSubscription(id: string): Promise<WebhookSubscription | null> {
    const s = this.subscriptions.get(id);
    return s ? copy(s) : null;
  }

  async listSubscriptions(orgId: string | null): Promise<WebhookSubscription[]> {
    return [...this.subscriptions.values()]
      .filter((s) => orgId === null || s.orgId === orgId)
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1))
      .map(copy);
  }

  async putSubscription(s: WebhookSubscription): Promise<void> {
    if (this.subscriptions.has(s.id)) this.subscriptions.set(s.id, copy(s));
  }

  async updateSubscription(id: string, expected: Partial<WebhookSubscription>, changes: Partial<WebhookSubscription>): Promise<boolean> {
    const s = this.subscriptions.get(id);
    if (!s || !fieldsHold(s, expected)) return false;
    this.subscriptions.set(id, copy({ ...s, ...changes }));
    return true;
  }

  async deleteSubscription(id: string): Promise<boolean> {
    for (const [k, d] of this.deliveries) if (d.subscriptionId === id) this.deliveries.delete(k);
    return this.subscriptions.delete(id);
  }

  async undispatchedEvents(limit: number): Promise<StoredEvent[]> {
    return [...this.events.values()]
      .filter((e) => !e.dispatched)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
      .map(({ dispatched: _, ...e }) => copy(e));
  }

  async dispatchEvents(fannedOut: readonly FannedOutEvent[]): Promise<void> {
    for (const { eventSeq, deliveries } of fannedOut) {
      for (const d of deliveries) {
        const exists = [...this.deliveries.values()].some((x) => x.subscriptionId === d.subscriptionId && x.eventId === d.eventId);
        if (!exists && !this.deliveries.has(d.id)) this.deliveries.set(d.id, copy(d));
      }
      for (const e of this.events.values()) if (e.seq === eventSeq) e.dispatched = true;
    }
  }

  async getEvent(id: string): Promise<StoredEvent | null> {
    const e = this.events.get(id);
    if (!e) return null;
    const { dispatched: _, ...event } = e;
    return copy(event);
  }

  async dueDeliveries(now: string, limit: number): Promise<OutboundDelivery[]> {
    const pending = [...this.deliveries.values()].filter((d) => d.status === 'pending').sort((a, b) => a.seq - b.seq);
    const heads = new Set<string>();
    const due: OutboundDelivery[] = [];
    for (const d of pending) {
      const line = `${d.subscriptionId}\u0000${d.orderKey}`;
      if (heads.has(line)) continue;
      heads.add(line);
      if (d.nextAttemptAt <= now && this.subscriptions.get(d.subscriptionId)?.enabled) due.push(copy(d));
    }
    return due.slice(0, limit);
  }

  async claimDelivery(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    const d = this.deliveries.get(id);
    if (!d || d.status !== 'pending' || d.nextAttemptAt !== expectedNextAttemptAt) return false;
    d.nextAttemptAt = until;
    return true;
  }

  async putDelivery(d: OutboundDelivery): Promise<void> {
    if (this.deliveries.has(d.id)) this.deliveries.set(d.id, copy(d));
  }

  async updateDelivery(id: string, expected: Partial<OutboundDelivery>, changes: Partial<OutboundDelivery>): Promise<boolean> {
    const d = this.deliveries.get(id);
    if (!d || !fieldsHold(d, expected)) return false;
    this.deliveries.set(id, copy({ ...d, ...changes }));
    return true;
  }

  async getDelivery(id: string): Promise<OutboundDelivery | null> {
    const d = this.deliveries.get(id);
    return d ? copy(d) : null;
  }

  async listDeliveries(orgId: string, filter: DeliveryFilter, page: { offset: number; limit: number }): Promise<{ rows: OutboundDelivery[]; total: number }> {
    const all = [...this.deliveries.values()]
      .filter(
        (d) =>
          d.orgId === orgId &&
          (filter.subscriptionId === undefined || d.subscriptionId === filter.subscriptionId) &&
          (filter.status === undefined || d.status === filter.status) &&
          (filter.eventId === undefined || d.eventId === filter.eventId),
      )
      .sort((a, b) => b.seq - a.seq || (a.subscriptionId < b.subscriptionId ? -1 : 1));
    return { rows: all.slice(page.offset, page.offset + page.limit).map(copy), total: all.length };
  }

  async pruneOutbox(before: string): Promise<number> {
    let pruned = 0;
    for (const [k, d] of this.deliveries) if (d.status !== 'pending' && d.createdAt < before && this.deliveries.delete(k)) pruned++;
    const referenced = new Set([...this.deliveries.values()].map((d) => d.eventId));
    for (const [k, e] of this.events) if (e.dispatched && e.at < before && !referenced.has(k)) this.events.delete(k);
    return pruned;
  }
}

import type Database from 'better-sqlite3';
import type { OutboxEvent } from '../../events/event-types.js';
import { parseDoc, parseDocs } from './json-docs.js';
import { fieldsHold } from '../fields-hold.js';
import { eventsToKeep, type DeliveryFilter, type FannedOutEvent, type OutboundDelivery, type OutboxStore, type StoredEvent, type WebhookSubscription } from '../outbox-store.js';

/**
 * Outbound webhooks in SQLite. The tables are created here (IF NOT EXISTS) rather than in the
 * migration list, so this role stays in one file. `insertEvents` is synchronous: the queue and
 * flaky-test writes call it inside their own transaction, so an event is stored exactly when the
 * change it tells of is, when its organization has an enabled webhook then (`eventsToKeep`).
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS outbox_events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    at         TEXT NOT NULL,
    dispatched INTEGER NOT NULL DEFAULT 0,
    doc        TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS outbox_events_undispatched ON outbox_events(dispatched, seq);
  CREATE TABLE IF NOT EXISTS webhook_subscriptions (
    id     TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    doc    TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS webhook_subscriptions_by_org ON webhook_subscriptions(org_id);
  CREATE TABLE IF NOT EXISTS outbound_deliveries (
    id              TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL,
    org_id          TEXT NOT NULL,
    event_id        TEXT NOT NULL,
    order_key       TEXT NOT NULL,
    seq             INTEGER NOT NULL,
    status          TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    doc             TEXT NOT NULL,
    UNIQUE (subscription_id, event_id)
  );
  CREATE INDEX IF NOT EXISTS outbound_deliveries_line ON outbound_deliveries(subscription_id, order_key, status, seq);
  -- Pending deliveries in outbox order: the due query walks it and stops at its limit.
  CREATE INDEX IF NOT EXISTS outbound_deliveries_pending ON outbound_deliveries(status, seq);
  CREATE INDEX IF NOT EXISTS outbound_deliveries_by_org ON outbound_deliveries(org_id, seq);
`;

export class SqliteOutboxTable implements OutboxStore {
  private readonly stmt;
  private readonly dispatchTx;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      insertEvent: db.prepare('INSERT OR IGNORE INTO outbox_events (id, at, doc) VALUES (?, ?, ?)'),
      orgListens: db.prepare("SELECT 1 FROM webhook_subscriptions WHERE org_id = ? AND json_extract(doc, '$.enabled') = 1 LIMIT 1").pluck(),
      undispatched: db.prepare('SELECT seq, doc FROM outbox_events WHERE dispatched = 0 ORDER BY seq LIMIT ?'),
      markDispatched: db.prepare('UPDATE outbox_events SET dispatched = 1 WHERE seq = ?'),
      eventById: db.prepare('SELECT seq, doc FROM outbox_events WHERE id = ?'),

      insertSub: db.prepare('INSERT INTO webhook_subscriptions (id, org_id, doc) VALUES (?, ?, ?)'),
      putSub: db.prepare('UPDATE webhook_subscriptions SET doc = ? WHERE id = ?'),
      subById: db.prepare('SELECT doc FROM webhook_subscriptions WHERE id = ?').pluck(),
      subsByOrg: db.prepare("SELECT doc FROM webhook_subscriptions WHERE org_id = ? ORDER BY json_extract(doc, '$.createdAt'), id").pluck(),
      subsAll: db.prepare("SELECT doc FROM webhook_subscriptions ORDER BY json_extract(doc, '$.createdAt'), id").pluck(),
      deleteSub: db.prepare('DELETE FROM webhook_subscriptions WHERE id = ?'),
      deleteSubDeliveries: db.prepare('DELETE FROM outbound_deliveries WHERE subscription_id = ?'),

      insertDelivery: db.prepare(
        `INSERT OR IGNORE INTO outbound_deliveries (id, subscription_id, org_id, event_id, order_key, seq, status, next_attempt_at, created_at, doc)
         VALUES (@id, @subscriptionId, @orgId, @eventId, @orderKey, @seq, @status, @nextAttemptAt, @createdAt, @doc)`,
      ),
      putDelivery: db.prepare('UPDATE outbound_deliveries SET status = @status, next_attempt_at = @nextAttemptAt, doc = @doc WHERE id = @id'),
      claim: db.prepare(
        `UPDATE outbound_deliveries SET next_attempt_at = @until, doc = json_set(doc, '$.nextAttemptAt', @until)
         WHERE id = @id AND status = 'pending' AND next_attempt_at = @expected`,
      ),
      deliveryById: db.prepare('SELECT doc FROM outbound_deliveries WHERE id = ?').pluck(),
      due: db.prepare(
        `SELECT d.doc FROM outbound_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND json_extract(s.doc, '$.enabled') = 1
           AND NOT EXISTS (SELECT 1 FROM outbound_deliveries e
                           WHERE e.subscription_id = d.subscription_id AND e.order_key = d.order_key
                             AND e.status = 'pending' AND e.seq < d.seq)
         ORDER BY d.seq LIMIT @limit`,
      ).pluck(),
      // Every filter in one statement; a null parameter means "not filtered".
      deliveries: db.prepare(
        `SELECT doc FROM outbound_deliveries
         WHERE org_id = @orgId AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
           AND (@status IS NULL OR status = @status) AND (@eventId IS NULL OR event_id = @eventId)
         ORDER BY seq DESC, subscription_id LIMIT @limit OFFSET @offset`,
      ).pluck(),
      deliveriesCount: db.prepare(
        `SELECT count(*) FROM outbound_deliveries
         WHERE org_id = @orgId AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
           AND (@status IS NULL OR status = @status) AND (@eventId IS NULL OR event_id = @eventId)`,
      ).pluck(),
      pruneDeliveries: db.prepare("DELETE FROM outbound_deliveries WHERE status != 'pending' AND created_at < ?"),
      pruneEvents: db.prepare(
        `DELETE FROM outbox_events WHERE dispatched = 1 AND at < ?
           AND id NOT IN (SELECT event_id FROM outbound_deliveries)`,
      ),
    };
    this.dispatchTx = db.transaction((fannedOut: readonly FannedOutEvent[]) => {
      for (const { eventSeq, deliveries } of fannedOut) {
        for (const d of deliveries) this.stmt.insertDelivery.run({ ...d, doc: JSON.stringify(d) });
        this.stmt.markDispatched.run(eventSeq);
      }
    });
  }

  /** Synchronous, for use inside another write's transaction. Repeating an event id is ignored. */
  insertEvents(events: readonly OutboxEvent[] | undefined): void {
    if (!events?.length) return;
    for (const e of eventsToKeep(events, (orgId) => this.stmt.orgListens.get(orgId) !== undefined)) {
      this.stmt.insertEvent.run(e.id, e.at, JSON.stringify(e));
    }
  }

  async insertSubscription(s: WebhookSubscription): Promise<void> {
    this.stmt.insertSub.run(s.id, s.orgId, JSON.stringify(s));
  }

  async getSubscription(id: string): Promise<WebhookSubscription | null> {
    return parseDoc<WebhookSubscription>(this.stmt.subById.get(id));
  }

  async listSubscriptions(orgId: string | null): Promise<WebhookSubscription[]> {
    return parseDocs<WebhookSubscription>(orgId === null ? this.stmt.subsAll.all() : this.stmt.subsByOrg.all(orgId));
  }

  async putSubscription(s: WebhookSubscription): Promise<void> {
    this.stmt.putSub.run(JSON.stringify(s), s.id);
  }

  async updateSubscription(id: string, expected: Partial<WebhookSubscription>, changes: Partial<WebhookSubscription>): Promise<boolean> {
    // IMMEDIATE: the read and the write hold the file's write lock, so no other process writes between.
    return this.db.transaction(() => {
      const s = parseDoc<WebhookSubscription>(this.stmt.subById.get(id));
      if (!s || !fieldsHold(s, expected)) return false;
      this.stmt.putSub.run(JSON.stringify({ ...s, ...changes }), id);
      return true;
    }).immediate();
  }

  async deleteSubscription(id: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.stmt.deleteSubDeliveries.run(id);
      return this.stmt.deleteSub.run(id).changes === 1;
    }).immediate();
  }

  async undispatchedEvents(limit: number): Promise<StoredEvent[]> {
    return (this.stmt.undispatched.all(limit) as { seq: number; doc: string }[]).map(toStoredEvent);
  }

  async dispatchEvents(fannedOut: readonly FannedOutEvent[]): Promise<void> {
    this.dispatchTx.immediate(fannedOut);
  }

  async getEvent(id: string): Promise<StoredEvent | null> {
    const row = this.stmt.eventById.get(id) as { seq: number; doc: string } | undefined;
    return row ? toStoredEvent(row) : null;
  }

  async dueDeliveries(now: string, limit: number): Promise<OutboundDelivery[]> {
    return parseDocs<OutboundDelivery>(this.stmt.due.all({ now, limit }));
  }

  async claimDelivery(id: string, expectedNextAttemptAt: string, until: string): Promise<boolean> {
    return this.stmt.claim.run({ id, expected: expectedNextAttemptAt, until }).changes === 1;
  }

  async putDelivery(d: OutboundDelivery): Promise<void> {
    this.stmt.putDelivery.run({ id: d.id, status: d.status, nextAttemptAt: d.nextAttemptAt, doc: JSON.stringify(d) });
  }

  async updateDelivery(id: string, expected: Partial<OutboundDelivery>, changes: Partial<OutboundDelivery>): Promise<boolean> {
    return this.db.transaction(() => {
      const d = parseDoc<OutboundDelivery>(this.stmt.deliveryById.get(id));
      if (!d || !fieldsHold(d, expected)) return false;
      const next = { ...d, ...changes, id };
      this.stmt.putDelivery.run({ id, status: next.status, nextAttemptAt: next.nextAttemptAt, doc: JSON.stringify(next) });
      return true;
    }).immediate();
  }

  async getDelivery(id: string): Promise<OutboundDelivery | null> {
    return parseDoc<OutboundDelivery>(this.stmt.deliveryById.get(id));
  }

  async listDeliveries(orgId: string, filter: DeliveryFilter, page: { offset: number; limit: number }): Promise<{ rows: OutboundDelivery[]; total: number }> {
    const params = {
      orgId,
      subscriptionId: filter.subscriptionId ?? null,
      status: filter.status ?? null,
      eventId: filter.eventId ?? null,
    };
    return this.db.transaction(() => ({
      rows: parseDocs<OutboundDelivery>(this.stmt.deliveries.all({ ...params, ...page })),
      total: this.stmt.deliveriesCount.get(params) as number,
    }))();
  }

  async pruneOutbox(before: string): Promise<number> {
    return this.db.transaction(() => {
      const pruned = this.stmt.pruneDeliveries.run(before).changes;
      this.stmt.pruneEvents.run(before);
      return pruned;
    }).immediate();
  }
}

function toStoredEvent(row: { seq: number; doc: string }): StoredEvent {
  return { ...(JSON.parse(row.doc) as OutboxEvent), seq: row.seq };
}

import type Database from 'better-sqlite3';
import type { Lease, LeaseStore } from '../lease-store.js';

/** Leases in the `leases` table: one row per name; a take is one upsert guarded by holder or expiry. */
export class SqliteLeases implements LeaseStore {
  private readonly takeTx;
  private readonly release;

  constructor(db: Database.Database) {
    const take = db.prepare(
      `INSERT INTO leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt)
       ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= @now`,
    );
    const read = db.prepare('SELECT name, holder, expires_at AS expiresAt FROM leases WHERE name = ?');
    this.release = db.prepare('DELETE FROM leases WHERE name = ? AND holder = ?');
    this.takeTx = db.transaction((name: string, holder: string, now: number, expiresAt: number): Lease => {
      take.run({ name, holder, now, expiresAt });
      return read.get(name) as Lease;
    });
  }

  async takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease> {
    return this.takeTx.immediate(name, holder, now, expiresAt);
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    this.release.run(name, holder);
  }
}

import type { Db } from 'mongodb';

/**
 * The layout of the MongoDB data this version writes. 2: outbox events numbered when staged, archive
 * rows tagged until their commit lands, uploads claimed first (docs/storage.md, "Upgrading"). 1 (no
 * marker): the versions before. A replica of layout 1 beside one of layout 2 breaks their guarantees
 * (its events are numbered after its commit lands; it reads the claim of an upload being written as
 * complete), so every replica of the earlier version is stopped before this one starts.
 */
export const LAYOUT = 2;

/** This replica must not run on this database now; the message says why and what to do. */
export class LayoutError extends Error {
  constructor(message: string) {
    super(`${message} (docs/storage.md, "Upgrading")`);
    this.name = 'LayoutError';
  }
}

/**
 * At start: refuses a database a newer layout wrote, and one where a lease is held, unexpired, by a
 * replica that does not write this layout (an earlier version still running); then records this
 * layout. Leases taken by this version carry their holder in `layoutHolder` and the layout in
 * `layout` (mongo-leases.ts), so a later layout's check finds this version's replicas too.
 */
export async function checkLayout(db: Db, now = Date.now()): Promise<void> {
  const marker = db.collection<{ _id: string; version: number }>('layout');
  const stored = await marker.findOne({ _id: 'layout' });
  if (stored && stored.version > LAYOUT) {
    throw new LayoutError(`this database was written by a newer mergeq (layout ${stored.version}); this version writes layout ${LAYOUT}: upgrade this replica`);
  }
  const older = await db
    .collection<{ _id: string; holder: string; expiresAt: number }>('leases')
    .findOne(
      { expiresAt: { $gt: now }, $or: [{ $expr: { $ne: ['$layoutHolder', '$holder'] } }, { layout: { $lt: LAYOUT } }] },
      { projection: { _id: 1, holder: 1, expiresAt: 1 } },
    );
  if (older) {
    throw new LayoutError(
      `a replica of an earlier mergeq (${older.holder}) is running on this database: it holds lease ${older._id} until ${new Date(older.expiresAt).toISOString()}; stop every replica of the earlier version, then start this one`,
    );
  }
  await marker.updateOne({ _id: 'layout' }, { $max: { version: LAYOUT } }, { upsert: true });
}

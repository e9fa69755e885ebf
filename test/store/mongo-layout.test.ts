import type { Db } from 'mongodb';
import { checkLayout, LAYOUT, LayoutError } from '../../src/store/mongo/layout.js';

/** A database answering `findOne` per collection from `docs`, recording what is asked and written. */
function aDb(docs: Record<string, object | null>) {
  const asked: { collection: string; filter: object }[] = [];
  const written: { collection: string; update: object }[] = [];
  const db = {
    collection: (name: string) => ({
      findOne: async (filter: object) => (asked.push({ collection: name, filter }), docs[name] ?? null),
      updateOne: async (_filter: object, update: object) => (written.push({ collection: name, update }), { matchedCount: 1 }),
    }),
  } as unknown as Db;
  return { db, asked, written };
}

describe('the MongoDB layout check at start', () => {
  it('records this layout when no other is running (never lowering a newer one)', async () => {
    const { db, written } = aDb({});
    await checkLayout(db, 1000);
    expect(written).toEqual([{ collection: 'layout', update: { $max: { version: LAYOUT } } }]);
  });

  it('refuses a database a newer layout wrote, writing nothing', async () => {
    const { db, written } = aDb({ layout: { _id: 'layout', version: LAYOUT + 1 } });
    await expect(checkLayout(db, 1000)).rejects.toThrow(new LayoutError(`this database was written by a newer mergeq (layout ${LAYOUT + 1}); this version writes layout ${LAYOUT}: upgrade this replica`));
    expect(written).toEqual([]);
  });

  it('refuses to start beside a replica of the earlier layout holding a live lease, naming it', async () => {
    const { db, asked, written } = aDb({ leases: { _id: 'queue:q1', holder: 'old-replica', expiresAt: Date.parse('2026-11-29T05:00:30.000Z') } });
    await expect(checkLayout(db, Date.parse('2026-11-29T05:00:00.000Z'))).rejects.toThrow(
      'a replica of an earlier mergeq (old-replica) is running on this database: it holds lease queue:q1 until 2026-11-29T05:00:30.000Z; stop every replica of the earlier version, then start this one',
    );
    // Live leases whose holder did not write this layout: an earlier version's, or one it renewed.
    expect(asked).toContainEqual({
      collection: 'leases',
      filter: { expiresAt: { $gt: Date.parse('2026-11-29T05:00:00.000Z') }, $or: [{ $expr: { $ne: ['$layoutHolder', '$holder'] } }, { layout: { $lt: LAYOUT } }] },
    });
    expect(written).toEqual([]);
  });
});

import { MongoServerError, type Collection, type Db } from 'mongodb';
import type { Lease, LeaseStore } from '../lease-store.js';
import { LAYOUT } from './layout.js';

interface LeaseDoc {
  _id: string;
  holder: string;
  expiresAt: number;
  layoutHolder?: string;
  layout?: number;
}

/**
 * Leases in the `leases` collection, one document per name. A take is one findOneAndUpdate whose
 * filter matches only a lease this holder has or whose time ran out; with upsert, a missing lease is
 * created, and a held one makes the upsert's insert fail on the _id (then it is read as it stands).
 */
export class MongoLeases implements LeaseStore {
  private readonly leases: Collection<LeaseDoc>;

  constructor(db: Db) {
    this.leases = db.collection('leases');
  }

  async createIndexes(): Promise<void> {
    await this.leases.createIndexes([{ key: { expiresAt: 1 } }]);
  }

  async takeLease(name: string, holder: string, now: number, expiresAt: number): Promise<Lease> {
    try {
      const taken = await this.leases.findOneAndUpdate(
        { _id: name, $or: [{ holder }, { expiresAt: { $lte: now } }] },
        // The layout its holder writes (layout.ts): an earlier version's take or renewal sets neither field.
        { $set: { holder, expiresAt, layoutHolder: holder, layout: LAYOUT } },
        { upsert: true, returnDocument: 'after' },
      );
      if (taken) return toLease(taken);
    } catch (err) {
      if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
    }
    const current = await this.leases.findOne({ _id: name });
    // Released between the two calls: nobody holds it, try again.
    return current ? toLease(current) : this.takeLease(name, holder, now, expiresAt);
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, holder });
  }
}

function toLease(doc: LeaseDoc): Lease {
  return { name: doc._id, holder: doc.holder, expiresAt: doc.expiresAt };
}

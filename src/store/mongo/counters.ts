import type { Collection, Db } from 'mongodb';
import { retryOnDuplicate } from './collection-ops.js';

interface Counter {
  name: string;
  value: number;
}

/**
 * Named sequences that only go up, shared by every process on the database: one `$inc` reserves a
 * block of numbers, so ties and clock steps cannot reorder what they number.
 */
export class MongoCounters {
  private readonly counters: Collection<Counter>;

  constructor(db: Db) {
    this.counters = db.collection('counters');
  }

  async createIndexes(): Promise<void> {
    await this.counters.createIndexes([{ key: { name: 1 }, unique: true }]);
  }

  /** The first of `count` consecutive numbers reserved in sequence `name` (the first ever is 1). */
  async reserve(name: string, count: number): Promise<number> {
    // The first use of a name by two processes at once: one upsert inserts, the other's retry increments.
    const counter = await retryOnDuplicate(() => this.counters.findOneAndUpdate({ name }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' }));
    return (counter?.value ?? count) - count + 1;
  }
}

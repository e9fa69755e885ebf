import type { Collection, Db } from 'mongodb';

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
    const counter = await this.counters.findOneAndUpdate({ name }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' });
    return (counter?.value ?? count) - count + 1;
  }
}

import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { flakyStoreContract } from './flaky-contract.js';
import { startMongoForTests } from './mongo-server.js';

const mongo = await startMongoForTests();

if ('skipReason' in mongo) {
  // Straight to stderr: jest does not show the console output of a file whose tests are all skipped.
  process.stderr.write(`MongoDB store contract skipped: ${mongo.skipReason}\n`);
  describe.skip('mongo store contract (no MongoDB server)', () => {
    it('needs MONGODB_URI or a mongod binary for mongodb-memory-server', () => {});
  });
} else {
  const databases: string[] = [];
  afterAll(async () => {
    const admin = new MongoClient(mongo.uri);
    try {
      for (const name of databases) await admin.db(name).dropDatabase();
    } finally {
      await admin.close();
      await mongo.stop();
    }
  });

  // Each test gets a database of its own, dropped at the end.
  const openFresh = () => {
    const dbName = `mergeq_test_${randomUUID().slice(0, 8)}`;
    databases.push(dbName);
    return openMongoStore(mongo.uri, { dbName });
  };
  storeContract('mongo', openFresh);
  flakyStoreContract('mongo', openFresh);
}

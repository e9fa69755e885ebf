import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { flakyStoreContract } from './flaky-contract.js';
import { startMongoForTests } from './mongo-server.js';

const mongo = await startMongoForTests();

if ('skipReason' in mongo && process.env.MERGEQ_REQUIRE_MONGO) {
  // npm run test:mongo: a missing server is a failure, not a skip.
  throw new Error(`npm run test:mongo needs a MongoDB server: ${mongo.skipReason}`);
} else if ('skipReason' in mongo) {
  // Straight to stderr: jest does not show the console output of a file whose tests are all skipped.
  process.stderr.write(
    `MongoDB store contract NOT RUN (no server): the queue, outbox, lease and flaky-test contract cases did not run on the MongoDB adapter. ` +
      `Its index and document-size checks ran without a server (mongo-indexes, mongo-document-size). ${mongo.skipReason}. ` +
      `With a server: MONGODB_URI=mongodb://127.0.0.1:27017 npm run test:mongo (docker compose up -d mongo starts one).\n`,
  );
  describe.skip('mongo store contract: NOT RUN, no MongoDB server (MONGODB_URI=… npm run test:mongo)', () => {
    it('runs every store contract case on the MongoDB adapter', () => {});
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

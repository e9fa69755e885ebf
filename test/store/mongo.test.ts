import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoStore } from '../../src/store/open.js';
import { storeContract } from './contract.js';
import { startMongoForTests } from './mongo-server.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { OutboxEvent } from '../../src/events/event-types.js';
import { queueEvents } from '../../src/events/queue-events.js';
import { MongoOutbox } from '../../src/store/mongo/outbox-collection.js';
import { LayoutError } from '../../src/store/mongo/layout.js';
import type { WebhookSubscription } from '../../src/store/outbox-store.js';
import { headOf } from '../../src/store/queue-rows.js';
import { aQueue, anEntry, at } from './fixtures.js';

const mongo = await startMongoForTests();

if ('skipReason' in mongo && process.env.MERGEQ_REQUIRE_MONGO) {
  // npm run test:mongo: a missing server is a failure, not a skip.
  throw new Error(`npm run test:mongo needs a MongoDB server: ${mongo.skipReason}`);
} else if ('skipReason' in mongo) {
  // Straight to stderr: jest does not show the console output of a file whose tests are all skipped.
  process.stderr.write(
    `MongoDB store contract NOT RUN (no server): the queue, outbox, lease and flaky-test contract cases, the races of two stores on one database, and reading documents of earlier versions, did not run on the MongoDB adapter. ` +
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
  // Another store on the last fresh one's database: another process, with its own caches.
  const openPeer = () => openMongoStore(mongo.uri, { dbName: databases[databases.length - 1]! });
  storeContract('mongo', openFresh, openPeer);

  describe("mongo store: one PR's events when a committer stops between its compare-and-set and its confirmation", () => {
    it('holds the later events back until the stopped commit is settled, then hands out both in commit order', async () => {
      const dbName = `mergeq_test_${randomUUID().slice(0, 8)}`;
      databases.push(dbName);
      const a = await openMongoStore(mongo.uri, { dbName });
      const b = await openMongoStore(mongo.uri, { dbName });
      const client = new MongoClient(mongo.uri);
      try {
        await a.outbox.insertSubscription(aSubscription());
        const queue = aQueue({ orgId: 'org-1', version: 1 });
        await a.queues.insertQueue(queue);
        const event = (id: string) => ({ id, type: 'pull_request.submitted', at: at(1), orgId: 'org-1', repoKey: queue.repoKey, branch: 'main', orderKey: `${queue.id}#1`, data: { kind: 'queue' } }) as unknown as OutboxEvent;
        // A's compare-and-set lands; A stops before it confirms its events.
        const confirm = jest.spyOn(MongoOutbox.prototype, 'confirm').mockImplementationOnce(async () => {});
        expect(await a.queues.commitQueue({ ...queue, version: 2 }, 1, { events: [event('ev-first')] })).toBe(true);
        confirm.mockRestore();
        const v2 = (await b.queues.getQueueById(queue.id))!;
        expect(await b.queues.commitQueue({ ...v2, version: 3 }, 2, { events: [event('ev-second')] })).toBe(true);

        expect(await b.outbox.undispatchedEvents(10)).toEqual([]);
        // A minute later: the stopped commit is found among the queue's commits and its events kept.
        await client.db(dbName).collection('staged_events').updateMany({}, { $set: { writtenAt: new Date(Date.now() - 120_000).toISOString() } });
        const events = await b.outbox.undispatchedEvents(10);
        expect(events.map((e) => e.id)).toEqual(['ev-first', 'ev-second']);
        expect(events[0]!.seq).toBeLessThan(events[1]!.seq);
      } finally {
        await client.close();
        await a.close();
        await b.close();
      }
    });
  });

  describe('mongo store: a rolling upgrade', () => {
    it('refuses to open beside a replica of the earlier layout holding a lease, and opens beside one of this layout', async () => {
      const dbName = `mergeq_test_${randomUUID().slice(0, 8)}`;
      databases.push(dbName);
      const client = new MongoClient(mongo.uri);
      try {
        // As the earlier version takes a lease: no layoutHolder.
        await client.db(dbName).collection<{ _id: string; holder: string; expiresAt: number }>('leases').insertOne({ _id: 'queue:q1', holder: 'old-replica', expiresAt: Date.now() + 60_000 });
        await expect(openMongoStore(mongo.uri, { dbName })).rejects.toThrow(LayoutError);
        await client.db(dbName).collection('leases').deleteMany({});

        const current = await openMongoStore(mongo.uri, { dbName });
        await current.leases.takeLease('queue:q1', 'new-replica', Date.now(), Date.now() + 60_000);
        const beside = await openMongoStore(mongo.uri, { dbName });
        await beside.close();
        await current.close();
      } finally {
        await client.close();
      }
    });
  });

  describe('mongo store: queue documents written by earlier versions', () => {
    it.each([
      ['arrays', (q: QueueDoc) => ({ ...q })],
      ['maps by id', (q: QueueDoc) => ({ ...identity(q), head: headOf(q), entries: slots(q.entries), runs: slots(q.runs), units: slots(q.units) })],
    ])('reads one with its rows as %s, commits over it twice, and sends the events it carried', async (_shape, layout) => {
      const dbName = `mergeq_test_${randomUUID().slice(0, 8)}`;
      databases.push(dbName);
      const store = await openMongoStore(mongo.uri, { dbName });
      const client = new MongoClient(mongo.uri);
      try {
        await store.outbox.insertSubscription(aSubscription());
        const queue = aQueue({ orgId: 'org-1', version: 4, entries: [anEntry('q', { prNumber: 1 }), anEntry('q', { prNumber: 2 })] });
        const carried = queueEvents(null, queue, at(0));
        await client.db(dbName).collection('queues').insertOne({ ...layout(queue), pendingEvents: carried });

        expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
        const v5 = { ...queue, version: 5, entries: [queue.entries[1]!] };
        expect(await store.queues.commitQueue(v5, 4)).toBe(true);
        const v6 = { ...v5, version: 6, state: 'paused' as const };
        expect(await store.queues.commitQueue(v6, 5)).toBe(true);

        const other = await openMongoStore(mongo.uri, { dbName });
        try {
          expect(await other.queues.getQueueById(queue.id)).toEqual(v6);
        } finally {
          await other.close();
        }
        expect((await store.outbox.undispatchedEvents(10)).map((e) => e.id)).toEqual(carried.map((e) => e.id));
      } finally {
        await client.close();
        await store.close();
      }
    });
  });
}

function identity(q: QueueDoc) {
  return { id: q.id, repoKey: q.repoKey, branch: q.branch, orgId: q.orgId, version: q.version };
}

function slots<T extends { id: string }>(items: readonly T[]): Record<string, { o: number; d: T }> {
  return Object.fromEntries(items.map((d, o) => [d.id, { o, d }]));
}

function aSubscription(): WebhookSubscription {
  return {
    id: 'wh_1', orgId: 'org-1', url: 'https://example.com/hook', format: 'standard', events: ['*'], repo: null, repoKey: null, branch: null,
    description: null, secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: at(0), updatedAt: at(0),
  };
}

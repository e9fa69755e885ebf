import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import type { Store } from '../store.js';
import { MongoCounters } from './counters.js';
import { MongoFlakyCollections } from './flaky-collections.js';
import { MongoInbox } from './inbox-collection.js';
import { MongoTemplates } from './template-collection.js';
import { assertSupportedServer } from './server-version.js';
import { checkLayout } from './layout.js';
import { MongoLeases } from './mongo-leases.js';
import { MongoOrgs } from './mongo-orgs.js';
import { MongoServer } from './mongo-server.js';
import { MongoOutbox } from './outbox-collection.js';
import { MongoQueueCollections } from './queue-collection.js';
import { MongoTargetCollections } from './target-collections.js';

/** How long start-up waits for MongoDB unless the URI says otherwise (the driver's own default is 30 s). */
export const MONGO_CONNECT_TIMEOUT_MS = 5_000;

/** MongoDB could not be reached at start-up; the message names MONGODB_URI and the hosts tried, never credentials. */
export class MongoUnreachableError extends Error {
  constructor(
    readonly hosts: string,
    cause: unknown,
  ) {
    super(
      `cannot reach MongoDB at ${hosts} (MONGODB_URI): ${cause instanceof Error ? cause.message : String(cause)}; ` +
        'check that MongoDB runs there and that MONGODB_URI names it (host, port, credentials)',
      { cause },
    );
    this.name = 'MongoUnreachableError';
  }
}

/** The hosts of a MongoDB URI, without its credentials: `mongodb://u:p@a:1,b:2/db` → `a:1,b:2`. */
export function mongoHosts(uri: string): string {
  return /^mongodb(?:\+srv)?:\/\/(?:[^@/?]*@)?([^/?]*)/.exec(uri)?.[1] || '(no host in the URI)';
}

/**
 * Connects, refuses a server older than MIN_MONGODB_VERSION, and opens the store on `dbName`; the
 * client is closed with the store (or when opening fails).
 */
export async function connectMongo(uri: string, dbName: string, options: MongoClientOptions = {}): Promise<Store> {
  const timeouts = /[?&](serverSelectionTimeoutMS|connectTimeoutMS)=/i.test(uri)
    ? {}
    : { serverSelectionTimeoutMS: MONGO_CONNECT_TIMEOUT_MS, connectTimeoutMS: MONGO_CONNECT_TIMEOUT_MS };
  const client = new MongoClient(uri, { ignoreUndefined: true, ...timeouts, ...options });
  try {
    await client.connect();
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new MongoUnreachableError(mongoHosts(uri), err);
  }
  try {
    await assertSupportedServer(client.db(dbName));
    return await openMongoOnDb(client.db(dbName), () => client.close());
  } catch (err) {
    await client.close();
    throw err;
  }
}

/**
 * The store on an open database (tests pass a recording one), its indexes created (creating an
 * existing index is a no-op); `close` ends what `db` was opened with. Documents are stored as the
 * domain objects themselves (plus MongoDB's own `_id`, never read back), apart from queues
 * (queue-collection.ts). No write needs a replica set: a queue commit writes its archive (tagged with
 * the commit until it lands), its pages and staged events, then a compare-and-set on `version`. The
 * layout check runs last (layout.ts): it refuses to open beside a replica of an earlier layout.
 */
export async function openMongoOnDb(db: Db, close: () => Promise<void>): Promise<Store> {
  const counters = new MongoCounters(db);
  const outbox = new MongoOutbox(db, db.collection('queues'), counters);
  const queues = new MongoQueueCollections(db, outbox);
  const targets = new MongoTargetCollections(db);
  const orgs = new MongoOrgs(db);
  const tests = new MongoFlakyCollections(db, outbox, counters);
  const server = new MongoServer(db);
  const inbox = new MongoInbox(db);
  const templates = new MongoTemplates(db);
  const leases = new MongoLeases(db);
  await Promise.all([queues, targets, orgs, tests, server, outbox, inbox, templates, counters, leases].map((role) => role.createIndexes()));
  await checkLayout(db);
  return {
    kind: 'mongo',
    queues,
    targets,
    orgs,
    tests,
    server,
    leases,
    outbox,
    inbox,
    templates,
    async ping() {
      await db.command({ ping: 1 });
    },
    close,
  };
}

import { MongoBinary, MongoMemoryServer } from 'mongodb-memory-server-core';

/** A MongoDB server for the contract suite, or why there is none. */
export type MongoForTests = { uri: string; stop: () => Promise<void> } | { skipReason: string };

/**
 * `MONGODB_URI` when set; otherwise a mongodb-memory-server, which needs a mongod binary: one
 * named by MONGOMS_SYSTEM_BINARY, one already downloaded, or one it can download now.
 */
export async function startMongoForTests(): Promise<MongoForTests> {
  const fromEnv = process.env.MONGODB_URI;
  if (fromEnv) return { uri: fromEnv, stop: async () => {} };
  // One download attempt is enough to learn there is no network; the default retries take seconds.
  process.env.MONGOMS_MAX_RETRIES ??= '1';
  try {
    // Resolving the binary first fails quietly; MongoMemoryServer.create would print a stack trace.
    await MongoBinary.getPath();
    const server = await MongoMemoryServer.create();
    return { uri: server.getUri(), stop: async () => void (await server.stop()) };
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    return { skipReason: `MONGODB_URI is not set and mongodb-memory-server has no mongod binary (${why})` };
  }
}

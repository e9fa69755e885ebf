import { assertSupportedServer, checkServerVersion, MIN_MONGODB_VERSION, UnsupportedMongoError } from '../../src/store/mongo/server-version.js';
import type { Db } from 'mongodb';

describe('the MongoDB server version checked at start', () => {
  it.each(['4.4.29', '5.0.26', '4.0.0', '5.3.1-rc0'])('refuses %s, naming it and the minimum', (version) => {
    expect(() => checkServerVersion(version)).toThrow(UnsupportedMongoError);
    expect(() => checkServerVersion(version)).toThrow(`MongoDB ${version} is not supported: mergeq needs MongoDB ${MIN_MONGODB_VERSION} or newer`);
  });

  it.each(['6.0.0', '6.0.13', '7.0.5', '8.0.0-rc2', '10.1.0'])('accepts %s', (version) => {
    expect(() => checkServerVersion(version)).not.toThrow();
  });

  it("asks the server's buildInfo, and refuses a server that answers no version", async () => {
    const askedFor: unknown[] = [];
    const answering = (version: unknown) => ({ command: async (cmd: unknown) => (askedFor.push(cmd), { ok: 1, version }) }) as unknown as Db;
    await expect(assertSupportedServer(answering('7.0.2'))).resolves.toBeUndefined();
    await expect(assertSupportedServer(answering('5.0.9'))).rejects.toThrow('MongoDB 5.0.9 is not supported');
    await expect(assertSupportedServer(answering(undefined))).rejects.toThrow(UnsupportedMongoError);
    expect(askedFor).toEqual([{ buildInfo: 1 }, { buildInfo: 1 }, { buildInfo: 1 }]);
  });
});

import type { Db } from 'mongodb';

/**
 * The oldest MongoDB server mergeq runs on (docs/storage.md). From 6.0 a sort that outgrows the
 * server's memory spills to disk by default (`allowDiskUseByDefault`), and 4.4 and 5.0 are past their
 * end of life.
 */
export const MIN_MONGODB_VERSION = '6.0';

/** The server is older than MIN_MONGODB_VERSION: mergeq refuses to start on it. */
export class UnsupportedMongoError extends Error {
  constructor(readonly version: string) {
    super(`MongoDB ${version} is not supported: mergeq needs MongoDB ${MIN_MONGODB_VERSION} or newer (see docs/storage.md); upgrade the server, or leave MONGODB_URI unset to use SQLite`);
    this.name = 'UnsupportedMongoError';
  }
}

/** Throws UnsupportedMongoError for a version below the minimum ("5.0.26", "4.4.0-rc1"). */
export function checkServerVersion(version: string): void {
  const [major = 0, minor = 0] = version.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  const [minMajor = 0, minMinor = 0] = MIN_MONGODB_VERSION.split('.').map(Number);
  if (!(major > minMajor || (major === minMajor && minor >= minMinor))) throw new UnsupportedMongoError(version);
}

/** Asks the server its version (`buildInfo`, allowed to any user) and refuses one too old. */
export async function assertSupportedServer(db: Db): Promise<void> {
  const info = (await db.command({ buildInfo: 1 })) as { version?: unknown };
  checkServerVersion(typeof info.version === 'string' ? info.version : '0');
}

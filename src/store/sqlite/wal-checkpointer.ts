import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { Worker } from 'node:worker_threads';

/** How often the checkpointer looks at the WAL's length. */
const POLL_MS = 100;

/**
 * Runs in the worker, with its own connection: every POLL_MS it reads the WAL's length from the
 * wal-index header (the -shm file: `mxFrame` at byte 16, `nBackfill` at byte 96, in the machine's
 * byte order; sqlite.org/walformat.html) and runs a PASSIVE checkpoint once `pages` frames wait.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const header = Buffer.alloc(100);
const read = workerData.littleEndian ? (at) => header.readUInt32LE(at) : (at) => header.readUInt32BE(at);
let fd = null;
const timer = setInterval(() => {
  try {
    fd ??= fs.openSync(workerData.path + '-shm', 'r');
    if (fs.readSync(fd, header, 0, header.length, 0) < header.length) return;
    if (read(16) - read(96) >= workerData.pages) db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // No -shm yet, or the database is busy: the next poll tries again.
  }
}, workerData.pollMs);
parentPort.once('message', () => {
  clearInterval(timer);
  if (fd !== null) fs.closeSync(fd);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * WAL checkpoints off the event loop. A checkpoint copies the WAL's pages into the database file
 * and syncs both (16 MiB at a time here): run by the committing connection, as SQLite does by
 * default, it holds the event loop of whichever request committed last for tens to hundreds of
 * milliseconds. This worker thread checkpoints, with its own connection, once `pages` pages wait;
 * the service's connection keeps an automatic checkpoint at a multiple of that, in case the worker
 * falls behind or stops.
 */
export function startWalCheckpointer(path: string, pages: number): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, pages, driver, pollMs: POLL_MS, littleEndian: endianness() === 'LE' } });
  worker.unref();
  worker.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Unreferenced, the worker would not keep the process alive while it closes.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

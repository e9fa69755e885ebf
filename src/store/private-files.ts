import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Folder and file modes of the store: only the service's user may read queues, tokens and secrets. */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and missing parents) readable by its owner only; an existing folder is left as it is. */
export function makePrivateDir(dir: string): void {
  if (existsSync(dir)) return;
  // One folder at a time: Node's recursive mkdir never returns under /proc (it retries ENOENT for ever).
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      mkdirSync(d, { mode: PRIVATE_DIR_MODE });
    } catch (err) {
      // Another replica starting beside this one may have just made it.
      if ((err as { code?: string }).code !== 'EEXIST' || !statSync(d).isDirectory()) throw err;
    }
  }
  // mkdir's mode is filtered by the umask; the folder must be 0700 whatever the umask.
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/**
 * Creates the database file 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
 * mode of the database file. An existing file is made 0600 too.
 */
export function makePrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

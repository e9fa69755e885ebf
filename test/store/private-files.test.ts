import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';

/** The data folder and the database files are readable by the service's user only. */

let root: string;
let previousUmask: number;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'mergeq-private-'));
  // The usual umask leaves new files world-readable: the store must not depend on it.
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
  rmSync(root, { recursive: true, force: true });
});

const mode = (path: string) => statSync(path).mode & 0o777;

test('a new data folder is 0700 and every database file in it 0600', async () => {
  const dataDir = join(root, 'nested', 'data');
  const store = await openStore({ dataDir });
  await store.orgs.createOrg({ id: 'o1', slug: 'acme', owners: ['github.com/acme'], createdAt: '2026-11-22T10:00:00.000Z' });

  expect(mode(dataDir).toString(8)).toBe('700');
  const files = readdirSync(dataDir);
  expect(files).toEqual(expect.arrayContaining(['mergeq.sqlite', 'mergeq.sqlite-wal', 'mergeq.sqlite-shm']));
  for (const file of files) expect(`${file} ${mode(join(dataDir, file)).toString(8)}`).toBe(`${file} 600`);
  await store.close();
});

import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWalCheckpointer } from '../../src/store/sqlite/wal-checkpointer.js';

describe('the WAL checkpointer thread', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mergeq-wal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function until(check: () => boolean, ms = 5000): Promise<void> {
    const end = Date.now() + ms;
    while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  test('copies the WAL into the database file once enough pages wait, without the writing connection checkpointing', async () => {
    const path = join(dir, 'db.sqlite');
    const db = new Database(path);
    db.pragma('page_size = 1024');
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE rows (doc TEXT NOT NULL)');
    const checkpointer = startWalCheckpointer(path, 200);
    try {
      const insert = db.prepare('INSERT INTO rows (doc) VALUES (?)');
      const before = statSync(path).size;
      // About 600 pages of 1 KiB, in the WAL only: the writing connection never checkpoints.
      db.transaction(() => {
        for (let i = 0; i < 1000; i++) insert.run('x'.repeat(500));
      })();
      await until(() => statSync(path).size > before + 500 * 1024);
      expect(statSync(path).size).toBeGreaterThan(before + 500 * 1024);
    } finally {
      await checkpointer.stop();
      db.close();
    }
  });

  test('leaves a short WAL alone, and stops when asked', async () => {
    const path = join(dir, 'db.sqlite');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE rows (doc TEXT NOT NULL)');
    const checkpointer = startWalCheckpointer(path, 10_000);
    const before = statSync(path).size;
    db.prepare('INSERT INTO rows (doc) VALUES (?)').run('x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(statSync(path).size).toBe(before);
    await checkpointer.stop();
    db.close();
  });
});

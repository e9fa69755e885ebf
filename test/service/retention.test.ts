import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RetentionService } from '../../src/service/retention-service.js';
import { openSqliteStore, SQLITE_FILE } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { aQueue, anEndedEntry, anEntry, aRun } from '../store/fixtures.js';

/** Target lists live while a queued entry can use them; history lives MERGEQ_HISTORY_DAYS. On a SQLite file. */

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const day = (n: number) => new Date(T0 + n * DAY);

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mergeq-retention-'));
  store = await openSqliteStore(join(dir, SQLITE_FILE));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a list stays while its head is queued and goes 3 days after it left; lists of heads never queued go 3 days after they came', async () => {
  const queue = aQueue({ version: 0 });
  const queued = anEntry(queue.id, { prNumber: 1, prSha: 'head-now' });
  await store.queues.insertQueue({ ...queue, entries: [queued] });
  const put = (prNumber: number, sha: string) =>
    store.targets.putImpactedTargets(queue.repoKey, prNumber, sha, { all: false, targets: [`//${sha}`] }, { at: day(0).toISOString() });
  await put(1, 'head-now');
  await put(1, 'head-before');
  await put(2, 'never-queued');
  const retention = new RetentionService({ store, historyDays: 90 });

  expect(await retention.prune(day(2))).toEqual({ targetLists: 0, entries: 0, runs: 0 });
  expect((await retention.prune(day(4))).targetLists).toBe(2);
  expect(await store.targets.getImpactedTargets(queue.repoKey, 1, 'head-now')).toEqual({ all: false, targets: ['//head-now'] });
  expect(await store.targets.getImpactedTargets(queue.repoKey, 1, 'head-before')).toBeNull();
  expect(await store.targets.getImpactedTargets(queue.repoKey, 2, 'never-queued')).toBeNull();

  // The PR merges: its head is in no queue any more, and its list goes 3 days later.
  const merged = anEndedEntry(queue.id, { ...queued, state: 'MERGED', stateChangedAt: day(4).toISOString() });
  expect(await store.queues.commitQueue({ ...queue, entries: [], version: 1 }, 0, { entries: [merged] })).toBe(true);
  await retention.prune(day(6));
  expect(await store.targets.getImpactedTargets(queue.repoKey, 1, 'head-now')).not.toBeNull();
  expect((await retention.prune(day(7.5))).targetLists).toBe(1);
  expect(await store.targets.getImpactedTargets(queue.repoKey, 1, 'head-now')).toBeNull();
});

test('ended entries and finished runs stay readable for the history days, and are deleted after them', async () => {
  const queue = aQueue({ version: 0 });
  await store.queues.insertQueue(queue);
  const ended = anEndedEntry(queue.id, { prNumber: 3, stateChangedAt: day(0).toISOString() });
  const run = aRun(queue.id, [3], { finishedAt: day(0).toISOString() });
  expect(await store.queues.commitQueue({ ...queue, version: 1 }, 0, { entries: [ended], runs: [run] })).toBe(true);
  const retention = new RetentionService({ store, historyDays: 90 });

  expect(await retention.prune(day(89))).toEqual({ targetLists: 0, entries: 0, runs: 0 });
  expect(await store.queues.latestArchivedEntry(queue.id, 3)).toEqual(ended);
  expect(await retention.prune(day(91))).toEqual({ targetLists: 0, entries: 1, runs: 1 });
  expect(await store.queues.latestArchivedEntry(queue.id, 3)).toBeNull();
  expect(await store.queues.archivedRuns(queue.id, {})).toEqual([]);
});

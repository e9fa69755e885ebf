import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';
import { MergeEstimates } from '../../src/queue-docs/merge-estimates.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

/**
 * The estimates of one queue document are reused for a second of the caller's clock (getQueue pages
 * and status reports of a deep queue), and never outlive the document: a change of the queue is
 * estimated at once.
 */

const NOW = Date.parse('2026-11-24T10:00:00.000Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

const run = (id: string, unitId: string, createdAt: number, finishedAt: number | null): TestRun =>
  ({ id, unitId, kind: 'main', status: finishedAt === null ? 'pending' : 'passed', attempt: 0, createdAt: iso(createdAt), finishedAt: finishedAt === null ? null : iso(finishedAt), dependencyEntryIds: [], prs: [] }) as unknown as TestRun;

/** PR 1 under test for 4 minutes, PR 2 waiting behind it; one earlier run took 10 minutes. */
function doc(): QueueDoc {
  const entries = [1, 2].map((n) => ({ id: `e${n}`, prNumber: n, state: n === 1 ? 'TESTING' : 'PENDING' }) as Entry);
  return {
    id: 'q1',
    state: 'running',
    settings: defaultSettings(),
    entries,
    units: entries.map((e) => ({ id: `u-${e.id}`, createdAt: iso(NOW), entryIds: [e.id] })),
    runs: [run('old', 'u-gone', NOW - 30 * MIN, NOW - 20 * MIN), run('r1', 'u-e1', NOW - 4 * MIN, null)],
  } as unknown as QueueDoc;
}

let store: Store;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
});
afterEach(async () => {
  await store.close();
});

test('within a second the same estimates are answered; after it they are made again', async () => {
  const estimates = new MergeEstimates(store.queues);
  const queue = doc();
  const first = await estimates.of(queue, new Date(NOW));
  expect(first.get('e1')?.estimatedMergeAt).toBe(iso(NOW + 6 * MIN));
  expect(first.get('e2')?.estimatedMergeAt).toBe(iso(NOW + 16 * MIN));
  expect(await estimates.of(queue, new Date(NOW + 999))).toBe(first);
  const later = await estimates.of(queue, new Date(NOW + 1_000));
  expect(later).not.toBe(first);
  expect(later.get('e2')?.estimatedMergeAt).toBe(iso(NOW + 16 * MIN));
});

test('a new version of the queue is estimated at once, not after the second', async () => {
  const estimates = new MergeEstimates(store.queues);
  const queue = doc();
  await estimates.of(queue, new Date(NOW));
  const third = { id: 'e3', prNumber: 3, state: 'PENDING' } as Entry;
  const grown = { ...queue, entries: [...queue.entries, third], units: [...queue.units, { id: 'u-e3', createdAt: iso(NOW), entryIds: ['e3'] }] };
  const next = await estimates.of(grown, new Date(NOW + 10));
  expect(next.get('e3')?.estimatedMergeAt).toBe(iso(NOW + 26 * MIN));
});

test('a clock that went back (a simulator, a test) gets new estimates', async () => {
  const estimates = new MergeEstimates(store.queues);
  const queue = doc();
  const first = await estimates.of(queue, new Date(NOW));
  expect(await estimates.of(queue, new Date(NOW - 500))).not.toBe(first);
});

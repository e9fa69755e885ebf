import type { QueueDoc } from '../../src/domain/queue.js';
import { QueueDocWriter } from '../../src/service/queue/queue-doc-writer.js';
import { openSqliteStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { appendEntry } from '../../src/domain/active-entries.js';
import { aQueue, anEntry } from '../store/fixtures.js';

/**
 * Group commit, with a real SQLite store: the writes to one queue that arrive together are applied
 * in arrival order and stored in one commit; a change that throws fails only its own caller.
 */

const KEY = { repoKey: 'github.com/acme/widgets', branch: 'main' };

let store: Store;
beforeEach(async () => {
  store = await openSqliteStore(':memory:');
  await store.queues.insertQueue(aQueue({ id: 'q1', version: 0 }));
});
afterEach(async () => {
  await store.close();
});

/** A change that sets the target sha to `sha`, answering the sha it found. */
const setSha = (sha: string) => (queue: QueueDoc) => ({ queue: { ...queue, targetSha: sha }, result: queue.targetSha });

test('writes that arrive together are applied in order and stored in one commit', async () => {
  const writer = new QueueDocWriter(store);
  const answers = await Promise.all(['a', 'b', 'c'].map((sha) => writer.update(KEY, setSha(sha))));
  // Each change saw the one before it; every caller gets the stored document.
  expect(answers.map((a) => a.result)).toEqual([null, 'a', 'b']);
  const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
  expect(stored!.targetSha).toBe('c');
  expect(stored!.version).toBe(1);
  for (const a of answers) expect(a.queue).toBe(stored);
  // A later write is a commit of its own.
  await writer.update(KEY, setSha('d'));
  expect((await store.queues.getQueue(KEY.repoKey, KEY.branch))!.version).toBe(2);
});

test('writes that come while a batch is being committed wait and are stored together in the next commit', async () => {
  const writer = new QueueDocWriter(store);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = writer.update(KEY, async (queue) => {
    await held; // a slow change (a git host read) holds the queue's lock
    return { queue: { ...queue, targetSha: 'first' }, result: null };
  });
  await new Promise((resolve) => setImmediate(resolve));
  const later: Promise<unknown>[] = [];
  for (const sha of ['b', 'c', 'd']) {
    later.push(writer.update(KEY, setSha(sha)));
    await new Promise((resolve) => setImmediate(resolve)); // each in a turn of its own
  }
  release();
  await Promise.all([first, ...later]);
  const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
  expect([stored!.targetSha, stored!.version]).toEqual(['d', 2]);
});

test('a change that throws fails only its own caller and writes nothing of its own', async () => {
  const writer = new QueueDocWriter(store);
  const refused = new Error('refused');
  const results = await Promise.allSettled([
    writer.update(KEY, setSha('a')),
    writer.update(KEY, (queue) => {
      if (queue.targetSha === 'a') throw refused;
      return { queue: { ...queue, state: 'paused' as const }, result: null };
    }),
    writer.update(KEY, setSha('c')),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect((results[1] as PromiseRejectedResult).reason).toBe(refused);
  const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
  expect([stored!.targetSha, stored!.state, stored!.version]).toEqual(['c', 'running', 1]);
});

test('a batch where nothing changes writes nothing and answers the stored document', async () => {
  const writer = new QueueDocWriter(store);
  const answers = await Promise.all([1, 2].map(() => writer.update(KEY, (queue) => ({ unchanged: true as const, result: queue.version }))));
  expect(answers.map((a) => [a.result, a.changed])).toEqual([
    [0, false],
    [0, false],
  ]);
  expect((await store.queues.getQueue(KEY.repoKey, KEY.branch))!.version).toBe(0);
});

test('a batch for a queue that is gone fails every caller with not found', async () => {
  const writer = new QueueDocWriter(store);
  const results = await Promise.allSettled([writer.update({ ...KEY, branch: 'nope' }, setSha('a')), writer.update({ ...KEY, branch: 'nope' }, setSha('b'))]);
  for (const r of results) expect(r.status === 'rejected' && (r.reason as { code?: string }).code).toBe('queue_not_found');
});

describe('a batch appends to the arrays it made in place, and never stores what a failed change appended', () => {
  /** A change that appends PR `n`'s entry and then does what `then` says with the two documents. */
  const appendThen =
    (n: number, then: 'keep' | 'throw' | 'unchanged' | 'start over') =>
    (queue: QueueDoc) => {
      const appended = { ...queue, entries: appendEntry(queue.entries, anEntry(queue.id, { id: `e${n}`, prNumber: n })) };
      if (then === 'throw') throw new Error(`#${n} refused`);
      if (then === 'unchanged') return { unchanged: true as const, result: n };
      return { queue: then === 'keep' ? appended : { ...queue, entries: [...queue.entries] }, result: n };
    };

  test.each(['throw', 'unchanged'] as const)(
    'a change that appended and then answered "%s" leaves no entry behind; the others are stored in order',
    async (then) => {
      const writer = new QueueDocWriter(store);
      await Promise.allSettled([
        writer.update(KEY, appendThen(1, 'keep')),
        writer.update(KEY, appendThen(2, 'keep')),
        writer.update(KEY, appendThen(3, then)),
        writer.update(KEY, appendThen(4, 'keep')),
      ]);
      const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
      expect(stored!.entries.map((e) => e.prNumber)).toEqual([1, 2, 4]);
      expect(stored!.version).toBe(1);
    },
  );

  test('a change that appended and then returned a document without that array is applied with copies', async () => {
    const writer = new QueueDocWriter(store);
    await Promise.all([1, 2, 3].map((n) => writer.update(KEY, appendThen(n, n === 3 ? 'start over' : 'keep'))));
    const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
    expect(stored!.entries.map((e) => e.prNumber)).toEqual([1, 2]);
  });

  test('a batch of appends is stored whole, in one commit', async () => {
    const writer = new QueueDocWriter(store);
    await Promise.all([1, 2, 3, 4, 5].map((n) => writer.update(KEY, appendThen(n, 'keep'))));
    const stored = await store.queues.getQueue(KEY.repoKey, KEY.branch);
    expect(stored!.entries.map((e) => e.prNumber)).toEqual([1, 2, 3, 4, 5]);
    expect(stored!.version).toBe(1);
    // The next batch starts from the stored document, which it never changes.
    await Promise.all([6, 7].map((n) => writer.update(KEY, appendThen(n, 'keep'))));
    expect(stored!.entries).toHaveLength(5);
    expect((await store.queues.getQueue(KEY.repoKey, KEY.branch))!.entries.map((e) => e.prNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });
});

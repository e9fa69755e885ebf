import { ConflictError } from '../../src/store/errors.js';
import type { Store } from '../../src/store/store.js';
import { aQueue, aRun, anEndedEntry, anEntry, at } from './fixtures.js';

/** Queues: compare-and-set commits, and the archive of what left them (called inside each adapter's contract suite, contract.ts). */
export function queueContract(open: () => Store): void {
  let store: Store;
  beforeEach(() => {
  store = open();
  });

  describe('queues', () => {
    it('finds a queue by repository and branch, and by id', async () => {
      const queue = aQueue({ entries: [] });
      queue.entries = [anEntry(queue.id)];
      await store.queues.insertQueue(queue);
      expect(await store.queues.getQueue(queue.repoKey, 'main')).toEqual(queue);
      expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
      expect(await store.queues.getQueue(queue.repoKey, 'develop')).toBeNull();
      expect(await store.queues.getQueueById('missing')).toBeNull();
    });

    it('refuses a second queue for the same repository and branch', async () => {
      const queue = aQueue();
      await store.queues.insertQueue(queue);
      await expect(store.queues.insertQueue(aQueue())).rejects.toThrow(ConflictError);
      await store.queues.insertQueue(aQueue({ branch: 'develop' }));
      expect((await store.queues.getQueue(queue.repoKey, 'main'))?.id).toBe(queue.id);
    });

    it('lists queues by organization, by repository, or both', async () => {
      const widgets = { host: 'github.com', owner: 'acme', name: 'widgets' };
      const gadgets = { host: 'github.com', owner: 'acme', name: 'gadgets' };
      const a = aQueue({ orgId: 'org-1', repo: widgets, branch: 'main' });
      const b = aQueue({ orgId: 'org-1', repo: widgets, branch: 'develop' });
      const c = aQueue({ orgId: 'org-1', repo: gadgets, branch: 'main' });
      const d = aQueue({ orgId: 'org-2', repo: { ...widgets, owner: 'other' }, branch: 'main' });
      for (const q of [a, b, c, d]) await store.queues.insertQueue(q);

      const ids = async (filter: { orgId?: string; repoKey?: string }) =>
        (await store.queues.listQueues(filter)).map((q) => q.id).sort();
      expect(await ids({ orgId: 'org-1' })).toEqual([a.id, b.id, c.id].sort());
      expect(await ids({ repoKey: a.repoKey })).toEqual([a.id, b.id].sort());
      expect(await ids({ orgId: 'org-2', repoKey: a.repoKey })).toEqual([]);
      expect(await ids({ orgId: 'org-1', repoKey: c.repoKey })).toEqual([c.id]);
      expect(await ids({})).toEqual([a.id, b.id, c.id, d.id].sort());
    });

    it('commits a new version when the stored version is the expected one', async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      const next = { ...queue, version: 2, state: 'paused' as const, entries: [anEntry(queue.id)] };
      expect(await store.queues.commitQueue(next, 1)).toBe(true);
      expect(await store.queues.getQueue(queue.repoKey, 'main')).toEqual(next);
    });

    it('refuses a commit based on a stale version and keeps the stored queue', async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      const winner = { ...queue, version: 2, state: 'paused' as const };
      expect(await store.queues.commitQueue(winner, 1)).toBe(true);
      const loser = { ...queue, version: 2, state: 'draining' as const };
      expect(await store.queues.commitQueue(loser, 1)).toBe(false);
      expect(await store.queues.getQueueById(queue.id)).toEqual(winner);
    });

    it('refuses a commit whose version is not the expected one plus one', async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      await expect(store.queues.commitQueue({ ...queue, version: 5 }, 1)).rejects.toThrow();
      expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
    });

    it('refuses a commit to a queue that was deleted', async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      expect(await store.queues.deleteQueue(queue.id, 1)).toBe(true);
      expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1)).toBe(false);
      expect(await store.queues.getQueueById(queue.id)).toBeNull();
    });

    it("writes the commit's archive, and writing the same archive again is harmless", async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      const ended = anEndedEntry(queue.id, { prNumber: 7, seq: 3, stateChangedAt: at(10) });
      const run = aRun(queue.id, [7], { finishedAt: at(10) });
      const archive = { entries: [ended], runs: [run] };

      expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1, archive)).toBe(true);
      // A reconcile that lost the race repeats the same archive with the stale version.
      expect(await store.queues.commitQueue({ ...queue, version: 2 }, 1, archive)).toBe(false);
      expect(await store.queues.commitQueue({ ...queue, version: 3 }, 2, archive)).toBe(true);

      expect(await store.queues.latestArchivedEntry(queue.id, 7)).toEqual(ended);
      expect(await store.queues.archivedEntriesEndedSince([queue.id], at(0))).toEqual([ended]);
      expect(await store.queues.archivedRuns(queue.id, {})).toEqual([run]);
      expect(await store.queues.archivedRuns(queue.id, { prNumber: 7 })).toEqual([run]);
    });

    it('replaces an archived entry or run written again with new content', async () => {
      const queue = aQueue({ version: 1 });
      await store.queues.insertQueue(queue);
      const entry = anEndedEntry(queue.id, { prNumber: 7, state: 'CANCELLED', stateChangedAt: at(1) });
      const run = aRun(queue.id, [7, 8], { status: 'cancelled', finishedAt: at(1) });
      await store.queues.commitQueue({ ...queue, version: 2 }, 1, { entries: [entry], runs: [run] });
      const entryAgain = { ...entry, state: 'MERGED' as const, stateChangedAt: at(2) };
      const runAgain = { ...run, status: 'passed' as const, prs: run.prs.slice(0, 1), finishedAt: at(2) };
      await store.queues.commitQueue({ ...queue, version: 3 }, 2, { entries: [entryAgain], runs: [runAgain] });

      expect(await store.queues.latestArchivedEntry(queue.id, 7)).toEqual(entryAgain);
      expect(await store.queues.archivedEntriesEndedSince([queue.id], at(0))).toEqual([entryAgain]);
      expect(await store.queues.archivedRuns(queue.id, {})).toEqual([runAgain]);
      expect(await store.queues.archivedRuns(queue.id, { prNumber: 8 })).toEqual([]);
    });

    it('deletes a queue only at the expected version', async () => {
      const queue = aQueue({ version: 3 });
      await store.queues.insertQueue(queue);
      expect(await store.queues.deleteQueue(queue.id, 2)).toBe(false);
      expect(await store.queues.getQueueById(queue.id)).toEqual(queue);
      expect(await store.queues.deleteQueue(queue.id, 3)).toBe(true);
      expect(await store.queues.getQueue(queue.repoKey, 'main')).toBeNull();
      expect(await store.queues.deleteQueue(queue.id, 3)).toBe(false);
      // The branch is free again.
      await store.queues.insertQueue(aQueue());
    });
  });

  describe('archive queries', () => {
    async function archive(queueId: string, entries: ReturnType<typeof anEntry>[], runs: ReturnType<typeof aRun>[] = []) {
      const queue = (await store.queues.getQueueById(queueId)) ?? aQueue({ id: queueId, branch: `b-${queueId}`, version: 0 });
      if (queue.version === 0) await store.queues.insertQueue(queue);
      expect(await store.queues.commitQueue({ ...queue, version: queue.version + 1 }, queue.version, { entries, runs })).toBe(true);
    }

    it('finds the latest archived entry of a PR by highest seq, whatever the order written', async () => {
      const q = 'queue-a';
      const second = anEndedEntry(q, { prNumber: 5, seq: 9, state: 'FAILED', stateChangedAt: at(1) });
      const first = anEndedEntry(q, { prNumber: 5, seq: 2, state: 'CANCELLED', stateChangedAt: at(5) });
      await archive(q, [second]);
      await archive(q, [first, anEndedEntry(q, { prNumber: 6, seq: 20 })]);
      await archive('queue-b', [anEndedEntry('queue-b', { prNumber: 5, seq: 50 })]);

      expect(await store.queues.latestArchivedEntry(q, 5)).toEqual(second);
      expect(await store.queues.latestArchivedEntry(q, 4)).toBeNull();
      expect(await store.queues.latestArchivedEntry('queue-c', 5)).toBeNull();
    });

    it('lists entries ended since a time, in the given queues only', async () => {
      const before = anEndedEntry('queue-a', { prNumber: 1, stateChangedAt: at(9) });
      const onTheDot = anEndedEntry('queue-a', { prNumber: 2, stateChangedAt: at(10) });
      const after = anEndedEntry('queue-b', { prNumber: 3, stateChangedAt: at(11) });
      const elsewhere = anEndedEntry('queue-c', { prNumber: 4, stateChangedAt: at(12) });
      await archive('queue-a', [before, onTheDot]);
      await archive('queue-b', [after]);
      await archive('queue-c', [elsewhere]);

      const ids = (entries: { id: string }[]) => entries.map((e) => e.id).sort();
      expect(ids(await store.queues.archivedEntriesEndedSince(['queue-a', 'queue-b'], at(10)))).toEqual(
        ids([onTheDot, after]),
      );
      expect(ids(await store.queues.archivedEntriesEndedSince(['queue-c'], at(0)))).toEqual([elsewhere.id]);
      expect(await store.queues.archivedEntriesEndedSince([], at(0))).toEqual([]);
      expect(await store.queues.archivedEntriesEndedSince(['queue-a'], at(60))).toEqual([]);
    });

    it('finds archived runs by run id, by any PR they tested, and by finish time, newest first', async () => {
      const q = 'queue-a';
      const old = aRun(q, [1, 2], { finishedAt: at(10) });
      const mid = aRun(q, [2, 3], { finishedAt: at(20), kind: 'bisection', status: 'failed' });
      const recent = aRun(q, [3], { finishedAt: at(30), status: 'cancelled' });
      await archive(q, [], [mid, old]);
      await archive(q, [], [recent]);
      await archive('queue-b', [], [aRun('queue-b', [2], { finishedAt: at(40) })]);

      const ids = (runs: { id: string }[]) => runs.map((r) => r.id);
      expect(await store.queues.archivedRuns(q, {})).toEqual([recent, mid, old]);
      expect(await store.queues.archivedRuns(q, { runId: mid.id })).toEqual([mid]);
      expect(ids(await store.queues.archivedRuns(q, { prNumber: 2 }))).toEqual([mid.id, old.id]);
      expect(ids(await store.queues.archivedRuns(q, { prNumber: 3 }))).toEqual([recent.id, mid.id]);
      expect(ids(await store.queues.archivedRuns(q, { finishedSince: at(20) }))).toEqual([recent.id, mid.id]);
      expect(ids(await store.queues.archivedRuns(q, { prNumber: 1, finishedSince: at(11) }))).toEqual([]);
      expect(ids(await store.queues.archivedRuns(q, { prNumber: 2, runId: old.id }))).toEqual([old.id]);
      expect(ids(await store.queues.archivedRuns(q, { runId: 'missing' }))).toEqual([]);
      expect(ids(await store.queues.archivedRuns('queue-b', { prNumber: 3 }))).toEqual([]);
    });
    it('prunes entries that ended and runs that finished before a time, in every queue, and nothing newer', async () => {
      const old = anEndedEntry('queue-a', { prNumber: 1, seq: 1, stateChangedAt: at(5) });
      const recent = anEndedEntry('queue-a', { prNumber: 1, seq: 2, stateChangedAt: at(15) });
      const otherQueue = anEndedEntry('queue-b', { prNumber: 2, stateChangedAt: at(1) });
      const oldRun = aRun('queue-a', [1], { finishedAt: at(5) });
      const recentRun = aRun('queue-a', [1], { finishedAt: at(15) });
      await archive('queue-a', [old, recent], [oldRun, recentRun]);
      await archive('queue-b', [otherQueue]);

      expect(await store.queues.pruneHistory(at(10))).toEqual({ entries: 2, runs: 1 });
      expect(await store.queues.latestArchivedEntry('queue-a', 1)).toEqual(recent);
      expect(await store.queues.latestArchivedEntry('queue-b', 2)).toBeNull();
      expect(await store.queues.archivedRuns('queue-a', {})).toEqual([recentRun]);
      expect(await store.queues.archivedRuns('queue-a', { prNumber: 1 })).toEqual([recentRun]);
      expect(await store.queues.pruneHistory(at(10))).toEqual({ entries: 0, runs: 0 });
    });
  });
}

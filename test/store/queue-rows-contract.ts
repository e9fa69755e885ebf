import fc from 'fast-check';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import type { Store } from '../../src/store/store.js';
import { aQueue, aRun, anEntry, at } from './fixtures.js';

/**
 * A commit writes only what changed (found by comparing with the document last read or committed),
 * so a wrong comparison loses data. These tests change queues in every way the engine can and read
 * them back, from the same store and, when `openPeer` is given, from another store on the same data
 * (another process), which has to load what was written.
 */
export function queueRowsContract(current: () => Store, openPeer?: () => Promise<Store>): void {
  describe('queue commits that write what changed', () => {
    const peers: Store[] = [];
    afterEach(async () => {
      for (const p of peers.splice(0)) await p.close();
    });
    async function peer(): Promise<Store | null> {
      if (!openPeer) return null;
      const p = await openPeer();
      peers.push(p);
      return p;
    }
    async function expectStored(queue: QueueDoc): Promise<void> {
      expect(await current().queues.getQueueById(queue.id)).toEqual(queue);
      const fresh = await peer();
      if (fresh) expect(await fresh.queues.getQueueById(queue.id)).toEqual(queue);
    }
    function withEntries(n: number): QueueDoc {
      const queue = aQueue({ version: 1 });
      return { ...queue, entries: Array.from({ length: n }, (_, i) => anEntry(queue.id, { prNumber: i + 1, seq: i + 1 })) };
    }

    it('stores each kind of change: a changed, removed and added entry, runs, the head, and nothing but the version', async () => {
      const store = current();
      const queue = withEntries(20);
      await store.queues.insertQueue(queue);
      let doc = (await store.queues.getQueueById(queue.id))!;
      const commit = async (change: (q: QueueDoc) => QueueDoc) => {
        const next = { ...change(doc), version: doc.version + 1 };
        expect(await store.queues.commitQueue(next, doc.version)).toBe(true);
        doc = next;
        await expectStored(doc);
      };
      await commit((q) => ({ ...q, entries: q.entries.map((e, i) => (i === 7 ? { ...e, state: 'TESTING' } : e)) }));
      await commit((q) => ({ ...q, entries: q.entries.filter((_, i) => i !== 3) }));
      await commit((q) => ({ ...q, nextSeq: 30, entries: [...q.entries, anEntry(q.id, { prNumber: 50, seq: 29 })] }));
      await commit((q) => ({ ...q, runs: [aRun(q.id, [1, 2], { status: 'pending' }), aRun(q.id, [5])] }));
      await commit((q) => ({ ...q, runs: [{ ...q.runs[0]!, status: 'passed' }] }));
      const unit = (id: string) => ({ id, entryIds: [id], createdAt: at(1) });
      await commit((q) => ({ ...q, units: [unit('u1'), unit('u2'), unit('u3')] }));
      await commit((q) => ({ ...q, units: [unit('u0'), q.units[0]!, unit('u1.5'), q.units[1]!, q.units[2]!, unit('u4')] }));
      await commit((q) => ({ ...q, units: [q.units[0]!, q.units[4]!, { ...q.units[1]!, entryIds: ['x'] }, q.units[3]!] }));
      for (let i = 0; i < 60; i++) await commit((q) => ({ ...q, units: [q.units[0]!, unit(`squeezed-${i}`), ...q.units.slice(1)] }));
      await commit((q) => ({ ...q, state: 'paused', settings: { ...q.settings, concurrency: 3 } }));
      await commit((q) => q);
      await commit((q) => ({ ...q, testResultsSeenAt: at(3), targetLineage: [{ sha: 'abc' }] }));
      await commit((q) => {
        const { testResultsSeenAt: _dropped, ...rest } = q;
        return { ...rest, entries: [], runs: [] };
      });
    });

    it('writes an entry that is a copy with equal content, and keeps a reordered array in its new order', async () => {
      const store = current();
      const queue = withEntries(6);
      await store.queues.insertQueue(queue);
      const doc = (await store.queues.getQueueById(queue.id))!;
      const reordered = { ...doc, version: 2, entries: [...doc.entries].reverse().map((e) => ({ ...e })) };
      expect(await store.queues.commitQueue(reordered, 1)).toBe(true);
      await expectStored(reordered);
      const added = { ...reordered, version: 3, entries: [reordered.entries[2]!, anEntry(queue.id, { prNumber: 9 }), reordered.entries[0]!] };
      expect(await store.queues.commitQueue(added, 2)).toBe(true);
      await expectStored(added);
    });

    it('after a failed compare-and-set, commits over what the winner stored without losing its change', async () => {
      const store = current();
      const queue = withEntries(10);
      await store.queues.insertQueue(queue);
      const other = (await peer()) ?? store;
      const mine = (await store.queues.getQueueById(queue.id))!;
      const theirs = (await other.queues.getQueueById(queue.id))!;
      const winner = { ...theirs, version: 2, entries: theirs.entries.map((e, i) => (i === 2 ? { ...e, prTitle: 'theirs' } : e)) };
      expect(await other.queues.commitQueue(winner, 1)).toBe(true);
      const loser = { ...mine, version: 2, entries: mine.entries.map((e, i) => (i === 5 ? { ...e, prTitle: 'mine' } : e)) };
      expect(await store.queues.commitQueue(loser, 1)).toBe(false);
      await expectStored(winner);

      const reloaded = (await store.queues.getQueueById(queue.id))!;
      const both = { ...reloaded, version: 3, entries: reloaded.entries.map((e, i) => (i === 5 ? { ...e, prTitle: 'mine' } : e)) };
      expect(await store.queues.commitQueue(both, 2)).toBe(true);
      await expectStored(both);
      expect(both.entries.map((e) => e.prTitle).filter((t) => !t.startsWith('PR'))).toEqual(['theirs', 'mine']);
      // The other writer's kept document is stale now: its commit fails, and it reads the latest.
      expect(await other.queues.commitQueue({ ...winner, version: 3 }, 2)).toBe(false);
      expect(await other.queues.getQueueById(queue.id)).toEqual(both);
    });

    it('keeps every change across random commits by two writers, conflicts included', async () => {
      const store = current();
      const other = (await peer()) ?? store;
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), fc.boolean(), fc.array(changeArb, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 12 }), async (steps) => {
          const queue = withEntries(5);
          await store.queues.insertQueue(queue);
          let expected: QueueDoc = (await store.queues.getQueueById(queue.id))!;
          let counter = 0;
          for (const [useOther, conflict, changes] of steps) {
            const writer = useOther ? other : store;
            const base = (await writer.queues.getQueueById(queue.id))!;
            expect(base).toEqual(expected);
            let next: QueueDoc = base;
            for (const c of changes) next = applyChange(next, c, `${++counter}`);
            next = { ...next, version: base.version + 1 };
            if (conflict) {
              // The other writer commits first: this commit fails and is made again over its document.
              const rival = useOther ? store : other;
              const theirs = (await rival.queues.getQueueById(queue.id))!;
              const won = { ...applyChange(theirs, { kind: 'change', at: 0 }, `r${++counter}`), version: theirs.version + 1 };
              expect(await rival.queues.commitQueue(won, theirs.version)).toBe(true);
              if (rival !== writer) expect(await writer.queues.commitQueue(next, base.version)).toBe(false);
              const again = (await writer.queues.getQueueById(queue.id))!;
              expect(again).toEqual(won);
              next = again;
              for (const c of changes) next = applyChange(next, c, `${++counter}`);
              next = { ...next, version: again.version + 1 };
              expect(await writer.queues.commitQueue(next, again.version)).toBe(true);
            } else {
              expect(await writer.queues.commitQueue(next, base.version)).toBe(true);
            }
            expected = structuredClone(next);
            await expectStored(expected);
          }
          expect(await store.queues.deleteQueue(queue.id, expected.version)).toBe(true);
        }),
        { numRuns: 15 },
      );
    });
  });
}

type Change = {
  kind: 'add' | 'change' | 'remove' | 'runAdd' | 'runChange' | 'runRemove' | 'head' | 'reorder' | 'unitInsert' | 'unitChange' | 'unitRemove';
  at: number;
};

const changeArb: fc.Arbitrary<Change> = fc.record({
  kind: fc.constantFrom('add', 'change', 'remove', 'runAdd', 'runChange', 'runRemove', 'head', 'reorder', 'unitInsert', 'unitInsert', 'unitChange', 'unitRemove'),
  at: fc.nat({ max: 20 }),
});

function applyChange(q: QueueDoc, c: Change, tag: string): QueueDoc {
  const pick = <T>(list: readonly T[]) => (list.length === 0 ? -1 : c.at % list.length);
  const replace = <T>(list: readonly T[], i: number, item: T) => list.map((x, j) => (j === i ? item : x));
  const e = pick(q.entries);
  const r = pick(q.runs);
  const u = pick(q.units);
  switch (c.kind) {
    case 'unitInsert': {
      // Anywhere, as a higher priority does: at the front, between two, at the end.
      const i = q.units.length === 0 ? 0 : c.at % (q.units.length + 1);
      const unit = { id: `unit-${tag}`, entryIds: [`e-${tag}`], createdAt: at(c.at) };
      return { ...q, units: [...q.units.slice(0, i), unit, ...q.units.slice(i)] };
    }
    case 'unitChange':
      return u < 0 ? q : { ...q, units: replace(q.units, u, { ...q.units[u]!, entryIds: [...q.units[u]!.entryIds, tag] }) };
    case 'unitRemove':
      return { ...q, units: q.units.filter((_, j) => j !== u) };
    case 'add':
      return { ...q, nextSeq: q.nextSeq + 1, entries: [...q.entries, anEntry(q.id, { prNumber: 100 + q.nextSeq, seq: q.nextSeq })] };
    case 'change':
      return e < 0 ? q : { ...q, entries: replace<Entry>(q.entries, e, { ...q.entries[e]!, prTitle: `t${tag}` }) };
    case 'remove':
      return { ...q, entries: q.entries.filter((_, j) => j !== e) };
    case 'runAdd':
      return { ...q, runs: [...q.runs, aRun(q.id, [c.at])] };
    case 'runChange':
      return r < 0 ? q : { ...q, runs: replace<TestRun>(q.runs, r, { ...q.runs[r]!, cancelReason: tag }) };
    case 'runRemove':
      return { ...q, runs: q.runs.filter((_, j) => j !== r) };
    case 'head':
      return { ...q, updatedAt: at(c.at), targetSha: `sha-${tag}` };
    case 'reorder':
      return { ...q, entries: e < 0 ? q.entries : [...q.entries.slice(e), ...q.entries.slice(0, e)] };
  }
}

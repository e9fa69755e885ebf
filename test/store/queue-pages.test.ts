import fc from 'fast-check';
import type { QueueDoc } from '../../src/domain/queue.js';
import { allRows, PageMap, ROWS_PER_PAGE, type QueuePage } from '../../src/store/mongo/queue-pages.js';
import { changeSnapshot, headOf, snapshotOf } from '../../src/store/queue-rows.js';
import { aQueue, anEntry, at } from './fixtures.js';

/**
 * The MongoDB adapter's pages, without a server: a commit's page writes, applied to a plain map of
 * stored pages, must read back as the committed queue, with no page over ROWS_PER_PAGE rows and no
 * page left that the queue does not name.
 */
type Step = { op: 'change' | 'remove'; at: number } | { op: 'append'; count: number } | { op: 'unitFirst' } | { op: 'reverseUnits' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom('change' as const, 'remove' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('append' as const), count: fc.integer({ min: 1, max: 150 }) }),
  fc.record({ op: fc.constant('unitFirst' as const) }),
  fc.record({ op: fc.constant('reverseUnits' as const) }),
);

function apply(q: QueueDoc, s: Step, n: number): QueueDoc {
  const unit = (id: string) => ({ id: `u-${id}`, entryIds: [id], createdAt: at(1) });
  switch (s.op) {
    case 'change': {
      const i = s.at % Math.max(q.entries.length, 1);
      return { ...q, entries: q.entries.map((e, k) => (k === i ? { ...e, prTitle: `changed ${n}` } : e)) };
    }
    case 'remove': {
      const i = s.at % Math.max(q.entries.length, 1);
      const gone = q.entries[i]?.id;
      return { ...q, entries: q.entries.filter((_, k) => k !== i), units: q.units.filter((u) => !u.entryIds.includes(gone ?? '')) };
    }
    case 'append': {
      const added = Array.from({ length: s.count }, (_, k) => anEntry(q.id, { prNumber: n * 1000 + k, seq: n * 1000 + k }));
      return { ...q, entries: [...q.entries, ...added], units: [...q.units, ...added.map((e) => unit(e.id))] };
    }
    case 'unitFirst':
      return { ...q, units: [unit(`first-${n}`), ...q.units] };
    case 'reverseUnits':
      return { ...q, units: [...q.units].reverse() };
  }
}

describe('MongoDB queue pages', () => {
  it('read back as the committed queue after any sequence of commits', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
        let ids = 0;
        const newId = () => `p${ids++}`;
        const stored = new Map<string, QueuePage>();
        const store = (w: { pages: QueuePage[]; replaced: string[] }) => {
          for (const id of w.replaced) stored.delete(id);
          for (const p of w.pages) stored.set(p._id, p);
        };
        let queue: QueueDoc = apply(aQueue({ version: 1 }), { op: 'append', count: 100 }, 0);
        const pages = PageMap.of([]);
        let written = pages.change(allRows(queue), queue.id, newId);
        store(written);
        const snapshot = snapshotOf(headOf(queue), queue.version, pages.rows());
        steps.forEach((s, n) => {
          const next = { ...apply(snapshot.doc, s, n + 1), version: snapshot.doc.version + 1 };
          written = pages.change(changeSnapshot(snapshot, next), queue.id, newId);
          store(written);
          queue = next;

          expect([...stored.keys()].sort()).toEqual([...written.pageIds].sort());
          for (const p of stored.values()) expect(p.rows.length).toBeLessThanOrEqual(ROWS_PER_PAGE);
          const read = PageMap.of(written.pageIds.map((id) => stored.get(id)!));
          expect(snapshotOf(headOf(queue), queue.version, read.rows()).doc).toEqual(queue);
        });
      }),
      { numRuns: 30 },
    );
  });
});

import fc from 'fast-check';
import { byTestCaseIdInTurns } from '../../src/store/sqlite/in-turns.js';

/** The large-upload sort that lets the event loop turn: the same order as one sort, ties kept in place. */

test('sorts like Array.prototype.sort by test case id, keeping the order of equal ids', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { maxLength: 9_000 }), async (ids) => {
      const rows = ids.map((testCaseId, at) => ({ testCaseId, at }));
      const expected = [...rows].sort((x, y) => (x.testCaseId < y.testCaseId ? -1 : x.testCaseId > y.testCaseId ? 1 : x.at - y.at));
      expect(await byTestCaseIdInTurns(rows)).toEqual(expected);
    }),
    { numRuns: 30 },
  );
});

test('the event loop turns while 40,000 rows are sorted', async () => {
  const rows = Array.from({ length: 40_000 }, (_, i) => ({ testCaseId: `${(i * 7919) % 40_000}` }));
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const sorted = await byTestCaseIdInTurns(rows);
  clearInterval(ticker);
  expect(sorted).toHaveLength(40_000);
  expect(turns).toBeGreaterThan(10);
});

/** Rows per chunk sorted in one turn of the event loop (a few milliseconds). */
const CHUNK = 2_000;

/** Resolves once the event loop has turned: a long write lets requests in between its steps. */
export function turnLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A copy of `rows` in test case id order, rows of one test case in their order (events: status
 * before quarantine), letting the event loop turn between steps: chunks sorted one per turn, then
 * merged two at a time. Sorting the 40,000 results of a large upload at once held
 * the loop for tens of milliseconds.
 */
export async function byTestCaseIdInTurns<T extends { testCaseId: string }>(rows: readonly T[]): Promise<T[]> {
  let runs: T[][] = [];
  for (let at = 0; at < rows.length; at += CHUNK) {
    if (at > 0) await turnLoop();
    runs.push(rows.slice(at, at + CHUNK).sort(byId));
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      await turnLoop();
      merged.push(i + 1 < runs.length ? merge(runs[i]!, runs[i + 1]!) : runs[i]!);
    }
    runs = merged;
  }
  return runs[0] ?? [];
}

function byId(a: { testCaseId: string }, b: { testCaseId: string }): number {
  return a.testCaseId < b.testCaseId ? -1 : a.testCaseId > b.testCaseId ? 1 : 0;
}

function merge<T extends { testCaseId: string }>(a: T[], b: T[]): T[] {
  const out: T[] = new Array<T>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = byId(b[j]!, a[i]!) < 0 ? b[j++]! : a[i++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

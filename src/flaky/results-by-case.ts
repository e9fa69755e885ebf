import type { TestResult } from '../domain/flaky.js';

/**
 * Stored results grouped by test case, each of the ids named with its result of this upload (not
 * stored yet) appended: the history the detector judges. Linear in the results given.
 */
export function withUploaded(stored: TestResult[], uploaded: ReadonlyMap<string, TestResult>, ids: string[]): Map<string, TestResult[]> {
  const history = new Map<string, TestResult[]>();
  for (const r of stored) {
    const list = history.get(r.testCaseId);
    if (list) list.push(r);
    else history.set(r.testCaseId, [r]);
  }
  for (const id of ids) {
    const r = uploaded.get(id);
    if (!r) continue;
    const list = history.get(id);
    if (list) list.push(r);
    else history.set(id, [r]);
  }
  return history;
}

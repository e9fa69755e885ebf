import type { TestIdentity, TestOutcome } from '../domain/flaky.js';
import type { JunitAttempt } from './junit-parser.js';

/** flaky-tests.md: names longer than this are cut (and the upload's answer says how many). */
export const MAX_TEST_NAME_LENGTH = 1000;

/** One test case of an upload, with all its attempts (retries) folded together. */
export interface UploadedTestCase extends TestIdentity {
  outcome: TestOutcome;
  failedAttempts: number;
  passedAttempts: number;
}

/**
 * Folds attempts with the same identity (retries) into one test case, in first-seen order. The final
 * outcome is the last attempt that ran (not skipped); `skipped` when none ran.
 */
export function groupAttempts(
  attempts: Iterable<JunitAttempt>,
  variant: string | null,
  pathRoot: string | null = null,
): { cases: UploadedTestCase[]; truncatedNames: number } {
  const root = pathRoot ? `${pathRoot.replace(/\\/g, '/').replace(/\/+$/, '')}/` : null;
  const byKey = new Map<string, UploadedTestCase>();
  let truncatedNames = 0;
  for (const a of attempts) {
    let name = a.name;
    if (name.length > MAX_TEST_NAME_LENGTH) {
      name = name.slice(0, MAX_TEST_NAME_LENGTH);
      truncatedNames++;
    }
    // Reporters such as jest-junit write absolute paths: relative to the checkout, they are the same
    // on every runner (and CODEOWNERS patterns can match them).
    const slashed = a.file?.replace(/\\/g, '/') ?? null;
    const file = root && slashed?.startsWith(root) ? slashed.slice(root.length) : a.file;
    const key = JSON.stringify([file, a.classname, a.parent, name]);
    let tc = byKey.get(key);
    if (!tc) {
      tc = { file, classname: a.classname, parent: a.parent, name, variant, outcome: 'skipped', failedAttempts: 0, passedAttempts: 0 };
      byKey.set(key, tc);
    }
    if (a.outcome === 'failed') tc.failedAttempts++;
    if (a.outcome === 'passed') tc.passedAttempts++;
    if (a.outcome !== 'skipped') tc.outcome = a.outcome;
  }
  return { cases: [...byKey.values()], truncatedNames };
}

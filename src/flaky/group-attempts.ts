import type { TestIdentity, TestOutcome } from '../domain/flaky.js';
import type { JunitAttempt } from './junit-parser.js';

/** flaky-tests.md: names longer than this are cut (and the upload's answer says how many). */
export const MAX_TEST_NAME_LENGTH = 1000;

/** One test case of an upload, with all its attempts (retries) folded together. */
export interface UploadedTestCase extends TestIdentity {
  outcome: TestOutcome;
  failedAttempts: number;
  passedAttempts: number;
  /** The first line of its last failure, when the report gave one. */
  firstFailureLine?: string;
}

/**
 * Folds attempts with the same identity (retries) into one test case, in first-seen order. The final
 * outcome is the last attempt that ran (not skipped); `skipped` when none ran. Attempts may be added
 * one at a time, as a streaming reader finds them.
 */
export class AttemptGroups {
  private readonly root: string | null;
  private readonly byKey = new Map<string, UploadedTestCase>();
  private truncatedNames = 0;

  constructor(
    private readonly variant: string | null,
    pathRoot: string | null = null,
  ) {
    this.root = pathRoot ? `${pathRoot.replace(/\\/g, '/').replace(/\/+$/, '')}/` : null;
  }

  add(a: JunitAttempt): void {
    let name = a.name;
    if (name.length > MAX_TEST_NAME_LENGTH) {
      name = name.slice(0, MAX_TEST_NAME_LENGTH);
      this.truncatedNames++;
    }
    // Reporters such as jest-junit write absolute paths: relative to the checkout, they are the same
    // on every runner (and CODEOWNERS patterns can match them).
    const slashed = a.file?.replace(/\\/g, '/') ?? null;
    const file = this.root && slashed?.startsWith(this.root) ? slashed.slice(this.root.length) : a.file;
    const key = JSON.stringify([file, a.classname, a.parent, name]);
    let tc = this.byKey.get(key);
    if (!tc) {
      tc = { file, classname: a.classname, parent: a.parent, name, variant: this.variant, outcome: 'skipped', failedAttempts: 0, passedAttempts: 0 };
      this.byKey.set(key, tc);
    }
    if (a.outcome === 'failed') tc.failedAttempts++;
    if (a.outcome === 'failed' && a.failureLine !== undefined) tc.firstFailureLine = a.failureLine;
    if (a.outcome === 'passed') tc.passedAttempts++;
    if (a.outcome !== 'skipped') tc.outcome = a.outcome;
  }

  result(): { cases: UploadedTestCase[]; truncatedNames: number } {
    return { cases: [...this.byKey.values()], truncatedNames: this.truncatedNames };
  }
}

/** All the attempts of an upload, folded (see AttemptGroups). */
export function groupAttempts(
  attempts: Iterable<JunitAttempt>,
  variant: string | null,
  pathRoot: string | null = null,
): { cases: UploadedTestCase[]; truncatedNames: number } {
  const groups = new AttemptGroups(variant, pathRoot);
  for (const a of attempts) groups.add(a);
  return groups.result();
}

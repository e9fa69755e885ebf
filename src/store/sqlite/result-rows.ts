import type { TestResult } from '../../domain/flaky.js';

/** A row of `test_results` as SQLite answers it. */
export interface ResultRow {
  repo_key: string;
  test_case_id: string;
  upload_id: string;
  commit_sha: string;
  branch: string | null;
  outcome: TestResult['outcome'];
  failed_attempts: number;
  passed_attempts: number;
  at: string;
  ignored: number;
}

/** The result a row holds. */
export function resultOf(r: ResultRow): TestResult {
  return {
    repoKey: r.repo_key,
    testCaseId: r.test_case_id,
    uploadId: r.upload_id,
    commitSha: r.commit_sha,
    branch: r.branch,
    outcome: r.outcome,
    failedAttempts: r.failed_attempts,
    passedAttempts: r.passed_attempts,
    at: r.at,
    ignoredForDetection: r.ignored === 1,
  };
}

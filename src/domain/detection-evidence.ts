import type { DetectionScope, TestResult } from './flaky.js';

/** A result as detection sees it. */
export type ResultEvidence = Pick<TestResult, 'uploadId' | 'commitSha' | 'branch' | 'outcome' | 'failedAttempts' | 'passedAttempts' | 'at' | 'ignoredForDetection'>;

/**
 * What the detector reads of a test case's results at each upload, whatever the length of its
 * history: those on a target branch (broken runs, fail-then-pass across commits), those on the
 * upload's commit, and those on the `flakyCommits` commits with the latest flaky events of a single
 * commit (a failed and a passed attempt) at or before `until`. `statusOf` over these is `evaluate`'s
 * status over all of them, as long as no result is later than `until`: flaky needs `flakyMinEvents`
 * events in the window and the last one recent, and the latest events are the ones read.
 */
export function isDetectionEvidence(r: Pick<ResultEvidence, 'commitSha' | 'branch'>, latestFlaky: ReadonlySet<string>, scope: DetectionScope): boolean {
  return r.commitSha === scope.commitSha || latestFlaky.has(r.commitSha) || (r.branch !== null && scope.targetBranches.includes(r.branch));
}

/** The commits of the latest `count` flaky events of a single commit at or before `until`, latest first. */
export function latestFlakyCommits(results: readonly ResultEvidence[], until: string, count: number): string[] {
  const byCommit = new Map<string, { failed: boolean; passed: boolean; at: string }>();
  for (const r of results) {
    if (r.ignoredForDetection || r.outcome === 'skipped') continue;
    const c = byCommit.get(r.commitSha) ?? { failed: false, passed: false, at: r.at };
    c.failed ||= r.failedAttempts > 0;
    c.passed ||= r.passedAttempts > 0;
    if (r.at > c.at) c.at = r.at;
    byCommit.set(r.commitSha, c);
  }
  return [...byCommit]
    .filter(([, c]) => c.failed && c.passed && c.at <= until)
    .sort(([, a], [, b]) => cmp(b.at, a.at))
    .slice(0, count)
    .map(([sha]) => sha);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import type { Evidence, FlakySettings } from '../domain/flaky.js';
import type { TestStatus } from '../domain/quarantine.js';
import type { ResultEvidence } from '../domain/detection-evidence.js';

const DAY_MS = 24 * 60 * 60 * 1000;


export interface FlakyEvent {
  at: string;
  commits: string[];
  uploads: string[];
}

export interface Verdict {
  status: TestStatus;
  evidence: Evidence;
}

/**
 * Flaky events (flaky-tests.md, "Detection"): the test both failed and passed on one commit (retries
 * in one upload, or several uploads, any branch); or on a target branch it failed on a commit and
 * passed on the next one. File changes between commits are not known to the service, so every
 * fail-then-pass on consecutive target-branch commits counts.
 */
export function flakyEvents(results: readonly ResultEvidence[], targetBranches: readonly string[]): FlakyEvent[] {
  const usable = sortByTime(results.filter((r) => !r.ignoredForDetection && r.outcome !== 'skipped'));
  const events: FlakyEvent[] = [];

  const byCommit = new Map<string, ResultEvidence[]>();
  for (const r of usable) {
    const list = byCommit.get(r.commitSha);
    if (list) list.push(r);
    else byCommit.set(r.commitSha, [r]);
  }
  for (const [sha, rs] of byCommit) {
    if (rs.some((r) => r.failedAttempts > 0) && rs.some((r) => r.passedAttempts > 0)) {
      events.push({ at: rs[rs.length - 1]!.at, commits: [sha], uploads: rs.map((r) => r.uploadId) });
    }
  }

  // On the target branch: the outcome of each commit, in the order the commits were first seen.
  const target = usable.filter((r) => r.branch !== null && targetBranches.includes(r.branch));
  const commits: { sha: string; failed: boolean; passed: boolean; last: ResultEvidence; uploads: string[] }[] = [];
  const commitBySha = new Map<string, (typeof commits)[number]>();
  for (const r of target) {
    let c = commitBySha.get(r.commitSha);
    if (!c) {
      commits.push((c = { sha: r.commitSha, failed: false, passed: false, last: r, uploads: [] }));
      commitBySha.set(r.commitSha, c);
    }
    c.failed ||= r.outcome === 'failed';
    c.passed ||= r.outcome === 'passed';
    c.last = r;
    c.uploads.push(r.uploadId);
  }
  for (let i = 1; i < commits.length; i++) {
    const before = commits[i - 1]!;
    const after = commits[i]!;
    if (before.failed && !before.passed && after.passed && !after.failed) {
      events.push({ at: after.last.at, commits: [before.sha, after.sha], uploads: [...before.uploads, ...after.uploads] });
    }
  }
  return events.sort((a, b) => cmp(a.at, b.at));
}

/**
 * The status a test case's results give it at `now`: broken when its last `brokenRuns` results on a
 * target branch all failed; else flaky when at least `flakyMinEvents` flaky events fell within
 * `flakyWindowDays` and the last one within `flakyRecoveryDays`; else healthy. Stateless: recovery is
 * the same rule seen later (a pass on the target branch ends broken; days without an event end flaky).
 */
export function evaluate(results: readonly ResultEvidence[], settings: FlakySettings, now: Date): Verdict {
  return judge(results, settings, now, true);
}

/** `evaluate`'s status alone, without gathering its evidence (the detector's check at every upload). */
export function statusOf(results: readonly ResultEvidence[], settings: FlakySettings, now: Date): TestStatus {
  return judge(results, settings, now, false).status;
}

const NO_EVIDENCE: Evidence = { commits: [], uploads: [] };

function judge(results: readonly ResultEvidence[], settings: FlakySettings, now: Date, withEvidence: boolean): Verdict {
  const evidenceOf = withEvidence ? evidenceOfParts : () => NO_EVIDENCE;
  const usable = sortByTime(results.filter((r) => !r.ignoredForDetection && r.outcome !== 'skipped'));
  const onTarget = usable.filter((r) => r.branch !== null && settings.targetBranches.includes(r.branch));
  const lastRuns = onTarget.slice(-settings.brokenRuns);
  if (settings.brokenRuns > 0 && lastRuns.length === settings.brokenRuns && lastRuns.every((r) => r.outcome === 'failed')) {
    return { status: 'broken', evidence: evidenceOf(lastRuns.map((r) => ({ commits: [r.commitSha], uploads: [r.uploadId] }))) };
  }

  const windowStart = now.getTime() - settings.flakyWindowDays * DAY_MS;
  const recoveredBefore = now.getTime() - settings.flakyRecoveryDays * DAY_MS;
  const inWindow = flakyEvents(usable, settings.targetBranches).filter((e) => Date.parse(e.at) >= windowStart && Date.parse(e.at) <= now.getTime());
  const last = inWindow[inWindow.length - 1];
  if (last && inWindow.length >= Math.max(1, settings.flakyMinEvents) && Date.parse(last.at) >= recoveredBefore) {
    return { status: 'flaky', evidence: evidenceOf(inWindow) };
  }
  return { status: 'healthy', evidence: evidenceOf(usable.slice(-1).map((r) => ({ commits: [r.commitSha], uploads: [r.uploadId] }))) };
}

function evidenceOfParts(parts: { commits: string[]; uploads: string[] }[]): Evidence {
  return { commits: [...new Set(parts.flatMap((p) => p.commits))], uploads: [...new Set(parts.flatMap((p) => p.uploads))] };
}

function sortByTime<T extends { at: string }>(rs: readonly T[]): T[] {
  // Stable: results of one instant keep the order they were stored in.
  return [...rs].sort((a, b) => cmp(a.at, b.at));
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

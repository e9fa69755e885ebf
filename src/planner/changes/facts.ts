import type { Entry } from '../../domain/entry.js';
import { activeEntryOf } from '../../domain/active-entries.js';
import { replaceEntry, type QueueDoc } from '../../domain/queue.js';
import { reason, type Reason } from '../../domain/reasons.js';
import { isInFlight, type FailedTest, type StatusCheck, type TestRun } from '../../domain/run.js';
import { isActive } from '../../domain/states.js';
import type { PullRequestInfo } from '../../domain/pull-request.js';
import { Draft, applyingSink } from '../draft.js';
import { dropResultsWithout, dropResultsWith, dropRun } from '../invalidation.js';
import { keptFailedTests, mergeFailedTests } from '../test-results.js';
import { lineageIndex, lineageOf, recordOwnMerge, recordTargetHead, testedCurrentHead } from '../target-base.js';

/**
 * Facts: what the outside world said, recorded as pure QueueDoc -> QueueDoc changes. The engine
 * records them, then plans again; the planner works out the consequences. The few facts that land or
 * remove a PR outside the planner's control (a refused merge, a PR merged elsewhere) also drop at once
 * the results that this made unusable, so that no later merge can rely on them.
 */

/**
 * The test branch exists: the run is pending. `requiredStatuses` come from branch protection. A run
 * must have tested what lands: its base plus the queue's merges since, all of them its own PRs (while
 * the head is unknown, the run's base is taken as the head). One built on an older head that lacks a
 * merge of the queue's, or on a head the queue does not know (moved outside it), is cancelled at once
 * (`base_moved`) and built again.
 */
export function recordRunCreated(
  q: QueueDoc,
  runId: string,
  r: { sha: string; baseSha: string; startSha?: string; testBranch?: string; requiredStatuses?: string[] },
  now: Date,
): QueueDoc {
  const lineage = lineageOf(q);
  const base = lineage.length === 0 ? { ...q, targetSha: r.baseSha, targetLineage: [{ sha: r.baseSha }] } : q;
  const created = updateRun(base, runId, (run) => {
    const fromProtection = q.settings.requiredStatuses === null && r.requiredStatuses !== undefined;
    return {
      ...run,
      status: run.status === 'creating' ? 'pending' : run.status,
      testBranchSha: r.sha,
      baseSha: r.baseSha,
      ...(r.startSha !== undefined ? { startSha: r.startSha } : {}),
      ...(r.testBranch !== undefined ? { testBranch: r.testBranch } : {}),
      ...(fromProtection ? { requiredStatuses: r.requiredStatuses!.slice(), requiredStatusesSource: 'branch_protection' as const } : {}),
    };
  });
  const run = created.runs.find((x) => x.id === runId);
  if (!run || !isInFlight(run) || testedCurrentHead(created, run, r.baseSha)) return created;
  const d = new Draft(created, now);
  const why = lineageIndex(q, r.baseSha) >= 0 ? 'an older head of the target branch' : `a head the queue did not make (${r.baseSha.slice(0, 7)})`;
  dropRun(applyingSink(d), run, reason('base_moved', `the test branch was built on ${why}: built again`));
  return d.toDoc();
}

/** The test branch could not be built: that PR does not merge onto the ones before it. */
export function recordRunConflict(q: QueueDoc, runId: string, conflictPrNumber: number, now: Date): QueueDoc {
  return updateRun(q, runId, (run) => {
    if (!isInFlight(run)) return run;
    const pr = run.prs.find((p) => p.prNumber === conflictPrNumber) ?? run.prs[run.prs.length - 1];
    return { ...run, status: 'failed', finishedAt: now.toISOString(), conflictEntryId: pr?.entryId ?? null };
  });
}

/** Statuses reported on a test branch head, merged by context into every live run on that SHA. */
export function recordStatusChecks(q: QueueDoc, testBranchSha: string, checks: StatusCheck[], _now: Date): QueueDoc {
  let changed = false;
  const runs = q.runs.map((run) => {
    if (run.testBranchSha !== testBranchSha || !isInFlight(run)) return run;
    const merged = mergeChecks(run.statusChecks, checks);
    if (merged === run.statusChecks) return run;
    changed = true;
    return { ...run, statusChecks: merged };
  });
  return changed ? { ...q, runs } : q;
}

/**
 * Test results were uploaded for a commit: every run whose test branch head it is learns its failed
 * tests (several uploads of one commit add up). Only the planner decides what they mean.
 */
export function recordTestResults(q: QueueDoc, testBranchSha: string, failedTests: FailedTest[], now: Date): QueueDoc {
  let changed = false;
  const runs = q.runs.map((run) => {
    if (run.testBranchSha !== testBranchSha) return run;
    changed = true;
    const { failedTests: kept, more } = keptFailedTests(mergeFailedTests(run.testResults?.failedTests ?? [], failedTests));
    const moreFailedTests = (run.testResults?.moreFailedTests ?? 0) + more;
    return { ...run, testResults: { failedTests: kept, ...(moreFailedTests > 0 ? { moreFailedTests } : {}), receivedAt: now.toISOString() } };
  });
  if (!changed) return q;
  return { ...q, runs, testResultsSeenAt: q.testResultsSeenAt ?? now.toISOString() };
}

export function recordBranchDeleted(q: QueueDoc, runId: string): QueueDoc {
  return updateRun(q, runId, (run) => (run.cleanedUp ? run : { ...run, cleanedUp: true }));
}

/** The git host merged the PR the planner asked to merge. */
export function recordMerged(q: QueueDoc, entryId: string, mergeCommitSha: string, now: Date): QueueDoc {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || !isActive(entry.state)) return q;
  if (!entry.mergeIntent) return mergedOutsideTheQueue(q, entry, mergeCommitSha || null, now);
  const d = new Draft(q, now);
  const why = entry.mergeIntent.runId
    ? reason('merged', 'merged after its tests passed')
    : reason('direct_merge', 'merged directly: already up to date with the target branch and its checks passed');
  d.apply({ type: 'transition', entryId, to: 'MERGED', reason: why, set: { mergeIntent: null } });
  d.entries.set(entryId, { ...d.entries.get(entryId)!, mergeCommitSha: mergeCommitSha || null });
  d.apply({ type: 'unplaceEntry', entryId });
  return recordOwnMerge(d.toDoc(), entryId, mergeCommitSha);
}

/**
 * The target branch was read at `sha`. When that is the tested commit of a passed run whose PRs were
 * all being merged, it is the queue's own fast-forward (read before it was recorded, or recorded
 * after a crash): those PRs merged. Any other head is as recordTargetHead says.
 */
export function recordTargetRead(q: QueueDoc, sha: string, now: Date): QueueDoc {
  if (lineageIndex(q, sha) >= 0) return recordTargetHead(q, sha, now);
  const run = q.runs.find((r) => r.status === 'passed' && r.testBranchSha === sha);
  const byId = new Map(q.entries.map((e) => [e.id, e]));
  const merging = run?.prs.map((p) => byId.get(p.entryId)).filter((e) => e !== undefined && e.state !== 'MERGED') ?? [];
  if (merging.length === 0 || !merging.every((e) => e!.mergeIntent !== null && isActive(e!.state))) return recordTargetHead(q, sha, now);
  return merging.reduce((doc, e) => recordMerged(doc, e!.id, sha, now), q);
}

/** The PR may no longer merge by the branch's rules (an approval dismissed, changes requested): it leaves the queue. */
export function recordNotMergeable(q: QueueDoc, entryId: string, message: string, now: Date): QueueDoc {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || !isActive(entry.state)) return q;
  return removeEntry(q, entry, 'CANCELLED', reason('not_mergeable', `not allowed to merge: ${message}`), now);
}

/** Branch protection refused the queue's fast-forward; `message` null: it was allowed again. */
export function recordFastForwardRefused(q: QueueDoc, message: string | null, now: Date): QueueDoc {
  if (message === null) return q.fastForwardRefused ? { ...q, fastForwardRefused: null } : q;
  return { ...q, fastForwardRefused: { at: now.toISOString(), message } };
}

/** The git host refused the merge: the PR fails, and what was to merge after it relied on it. */
export function recordMergeRefused(
  q: QueueDoc,
  entryId: string,
  code: 'merge_conflict' | 'pr_updated',
  message: string,
  now: Date,
): QueueDoc {
  const entry = q.entries.find((e) => e.id === entryId);
  if (!entry || !isActive(entry.state)) return q;
  return removeEntry(q, entry, 'FAILED', reason(code, message), now);
}

/**
 * What the git host says about a PR: refreshes the readiness of its active entry, or ends it when it
 * was closed, merged elsewhere, changed, turned into a draft or moved to another base. `pr` null: the
 * PR does not exist (then `prNumber` says which one).
 */
export function recordPullRequest(
  q: QueueDoc,
  pr: PullRequestInfo | null,
  now: Date,
  note?: string | null,
  prNumber?: number,
): QueueDoc {
  const number = pr?.number ?? prNumber;
  if (number === undefined) return q;
  const entry = activeEntryOf(q.entries, number);
  if (!entry) return q;
  const queued = entry.state !== 'NOT_READY';

  if (pr === null) {
    if (queued) return removeEntry(q, entry, 'CANCELLED', reason('pr_closed', 'the pull request no longer exists'), now);
    return replaceEntry(q, { ...entry, readiness: { ...entry.readiness, isOpen: false, note: note ?? 'the pull request was not found' } });
  }
  if (pr.state === 'merged') {
    if (entry.mergeIntent) return recordMerged(q, entry.id, pr.mergeCommitSha ?? '', now);
    return mergedOutsideTheQueue(q, entry, pr.mergeCommitSha, now);
  }
  // The head read when the PR was submitted is the approved one (unknown only when the git host could
  // not be asked then): any other head ends the entry, NOT_READY included, or unreviewed commits
  // pushed after `/merge` would merge.
  if (entry.prSha !== '' && pr.headSha !== entry.prSha) {
    return removeEntry(q, entry, 'CANCELLED', reason('pr_updated', `new commits were pushed (${pr.headSha.slice(0, 7)}): what was approved is not what would merge`), now);
  }
  if (queued) {
    if (pr.state === 'closed') return removeEntry(q, entry, 'CANCELLED', reason('pr_closed', 'the pull request was closed'), now);
    if (pr.draft) return removeEntry(q, entry, 'CANCELLED', reason('converted_to_draft', 'the pull request was converted to a draft'), now);
    if (pr.baseBranch !== q.branch && pr.baseBranch !== stackBaseOf(q, entry)) {
      return removeEntry(q, entry, 'CANCELLED', reason('base_changed', `the base branch changed to ${pr.baseBranch}`), now);
    }
  }
  const shaChanged = pr.headSha !== entry.prSha;
  const refreshed: Entry = {
    ...entry,
    prTitle: pr.title,
    prAuthor: pr.author,
    ...(pr.headRef ? { prHeadRef: pr.headRef } : {}),
    prSha: pr.headSha,
    prBaseBranch: pr.baseBranch,
    // A plain chain that the git host has since stacked natively lands through its stack merge.
    ...(pr.nativeStack && entry.stack && entry.stack.kind !== 'native' ? { stack: { ...entry.stack, kind: 'native' as const } } : {}),
    readiness: {
      ...entry.readiness,
      isOpen: pr.state === 'open',
      isDraft: pr.draft,
      doesBaseBranchMatch: pr.baseBranch === q.branch,
      gitHubMergeability: pr.mergeability,
      // Impacted targets, checks and up-to-dateness belong to one head SHA.
      ...(shaChanged ? { hasImpactedTargets: false, containsTargetSha: null, ownChecksPassedSha: null } : {}),
      note: note ?? null,
    },
  };
  return identical(entry, refreshed) ? q : replaceEntry(q, refreshed);
}

/**
 * The branch a stack member above the bottom is based on: the head branch of the member below it
 * (null for the bottom, a PR not in a stack, or a member below that is no longer in the document).
 */
function stackBaseOf(q: QueueDoc, entry: Entry): string | null {
  const place = entry.stack;
  if (!place || place.position < 2) return null;
  const below = q.entries.find((e) => e.stack?.id === place.id && e.stack.position === place.position - 1 && isActive(e.state));
  return below?.stack?.headRef ?? null;
}

/** Impacted targets are known for that PR head. */
export function recordImpactedTargets(q: QueueDoc, prNumber: number, sha: string): QueueDoc {
  const entry = activeEntryOf(q.entries, prNumber);
  if (!entry || entry.prSha !== sha || entry.readiness.hasImpactedTargets) return q;
  return replaceEntry(q, { ...entry, readiness: { ...entry.readiness, hasImpactedTargets: true } });
}


// ---- helpers ----

function mergedOutsideTheQueue(q: QueueDoc, entry: Entry, mergeCommitSha: string | null, now: Date): QueueDoc {
  const d = new Draft(q, now);
  const queued = d.unitOfEntry(entry.id) !== undefined;
  d.apply({
    type: 'transition',
    entryId: entry.id,
    to: 'MERGED',
    reason: reason('merged_elsewhere', 'the pull request was merged outside the queue'),
    set: { mergeIntent: null },
  });
  d.entries.set(entry.id, { ...d.entries.get(entry.id)!, mergeCommitSha });
  // The target branch now holds it (queued or not): a result that did not test it says nothing.
  dropResultsWithout(applyingSink(d), [entry.id], reason('ahead_merged_elsewhere', `#${entry.prNumber} was merged outside the queue`));
  if (queued) d.apply({ type: 'unplaceEntry', entryId: entry.id });
  // The target head moved to something the queue did not merge: unknown until the engine reads it.
  return { ...d.toDoc(), targetSha: null, targetLineage: [] };
}

/** Ends an entry (FAILED/CANCELLED) and drops the merge decisions that relied on it. */
function removeEntry(q: QueueDoc, entry: Entry, to: 'FAILED' | 'CANCELLED', why: Reason, now: Date): QueueDoc {
  const d = new Draft(q, now);
  d.apply({ type: 'transition', entryId: entry.id, to, reason: why, set: { mergeIntent: null } });
  d.apply({ type: 'unplaceEntry', entryId: entry.id });
  const removedWhy =
    to === 'FAILED'
      ? reason('ahead_failed', `#${entry.prNumber} ahead failed: ${why.message}`)
      : reason('ahead_cancelled', `#${entry.prNumber} ahead was removed from the queue`);
  dropResultsWith(applyingSink(d), entry.id, removedWhy);
  return d.toDoc();
}

function updateRun(q: QueueDoc, runId: string, f: (run: TestRun) => TestRun): QueueDoc {
  let changed = false;
  const runs = q.runs.map((r) => {
    if (r.id !== runId) return r;
    const next = f(r);
    if (next !== r) changed = true;
    return next;
  });
  return changed ? { ...q, runs } : q;
}

/** Field for field the same (a fresh read of the PR that told nothing new). */
function identical(a: Entry, b: Entry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function mergeChecks(current: StatusCheck[], incoming: StatusCheck[]): StatusCheck[] {
  const byContext = new Map(current.map((c) => [c.context, c]));
  let changed = false;
  for (const c of incoming) {
    const old = byContext.get(c.context);
    if (old && old.state === c.state && old.url === c.url) continue;
    byContext.set(c.context, { context: c.context, state: c.state, url: c.url });
    changed = true;
  }
  return changed ? [...byContext.values()] : current;
}

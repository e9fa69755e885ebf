import type { LineageHead, QueueDoc } from '../domain/queue.js';
import { reason } from '../domain/reasons.js';
import type { TestRun } from '../domain/run.js';
import { Draft, applyingSink } from './draft.js';
import { dropRun } from './invalidation.js';
import { isLiveOrPassed } from './run-status.js';

/**
 * The base a run tested (github.md, "The base the run tested"): a run merges only onto the target
 * head it was built on plus exactly the queue's own merges since. The queue keeps those heads as its
 * lineage; a head it did not make starts a new lineage, and every result built on an older one is
 * dropped (`base_moved`) and retested on the new head.
 */

export function lineageOf(q: QueueDoc): readonly LineageHead[] {
  return q.targetLineage ?? (q.targetSha ? [{ sha: q.targetSha }] : []);
}

/** Where `sha` stands in the lineage; -1 when it is not there. */
export function lineageIndex(q: QueueDoc, sha: string): number {
  return lineageOf(q).findLastIndex((h) => h.sha === sha);
}

/** Whether a run built on `baseSha` may still merge (a base not known yet, null, is an older record's). */
export function onCurrentBase(q: QueueDoc, baseSha: string | null): boolean {
  return baseSha === null || lineageOf(q).length === 0 || lineageIndex(q, baseSha) >= 0;
}

/**
 * Whether `run`, built on `baseSha`, tested what lands now: every merge of the queue since that base
 * is one of the run's own PRs (a branch built on an older head, adopted after a crash, may be fine).
 */
export function testedCurrentHead(q: QueueDoc, run: TestRun, baseSha: string): boolean {
  const lineage = lineageOf(q);
  if (lineage.length === 0) return true;
  const at = lineageIndex(q, baseSha);
  if (at < 0) return false;
  const own = new Set(run.prs.map((p) => p.entryId));
  return lineage.slice(at + 1).every((h) => h.entryId !== undefined && own.has(h.entryId));
}

/**
 * The target branch was read at `sha`. A head of the lineage is nothing new (a read may lag behind the
 * queue's own merge); any other head moved outside the queue.
 */
export function recordTargetHead(q: QueueDoc, sha: string, now: Date): QueueDoc {
  if (lineageIndex(q, sha) >= 0) return q.targetLineage ? q : { ...q, targetLineage: [...lineageOf(q)] };
  return movedTo(q, sha, now);
}

/**
 * The git host built a new test branch (not one adopted from before a crash) on `sha`, the head it
 * read after it could not start where the queue asked (on the newest head of the lineage, whose commit
 * it does not have). That is no lagging read: an older head of the lineage means the branch went back
 * (reset, or a repository made anew with the same history), and the queue takes it as moved there.
 * Taken as a lagging read, every build would land on it again and be dropped again, without end.
 */
export function recordTargetBuiltOn(q: QueueDoc, sha: string, now: Date): QueueDoc {
  const lineage = lineageOf(q);
  if (lineage.length === 0 || lineage.at(-1)!.sha === sha) return recordTargetHead(q, sha, now);
  return movedTo(q, sha, now);
}

/** The target branch moved outside the queue to `sha`: a new lineage, and results on others are dropped. */
function movedTo(q: QueueDoc, sha: string, now: Date): QueueDoc {
  const moved: QueueDoc = { ...q, targetSha: sha, targetLineage: [{ sha }] };
  const d = new Draft(moved, now);
  const why = reason('base_moved', `the target branch moved outside the queue (now ${sha.slice(0, 7)}): retested on its new head`);
  for (const run of [...d.runs.values()]) {
    if (isLiveOrPassed(run) && !onCurrentBase(moved, run.baseSha)) dropRun(applyingSink(d), run, why);
  }
  return d.toDoc();
}

/**
 * The queue merged entry `entryId`, making `mergeCommitSha` the head. The lineage keeps only what runs
 * still built on may need: from the oldest base of a live or passed run on.
 */
export function recordOwnMerge(q: QueueDoc, entryId: string, mergeCommitSha: string): QueueDoc {
  if (!mergeCommitSha) return q;
  const last = lineageOf(q).at(-1);
  // One fast-forward merges several entries: each gets a head of its own, all with that commit.
  const sameMerge = last?.sha === mergeCommitSha && last.entryId !== undefined && last.entryId !== entryId;
  // Already read as the head (a merge recorded after a restart read it): nothing new.
  if (lineageIndex(q, mergeCommitSha) >= 0 && !sameMerge) return q;
  const lineage = [...lineageOf(q), { sha: mergeCommitSha, entryId }];
  let from = lineage.length - 1;
  for (const run of q.runs) {
    if (!isLiveOrPassed(run) || run.baseSha === null) continue;
    const i = lineage.findIndex((h) => h.sha === run.baseSha);
    if (i >= 0 && i < from) from = i;
  }
  return { ...q, targetSha: mergeCommitSha, targetLineage: lineage.slice(from) };
}

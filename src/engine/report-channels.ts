import type { Entry } from '../domain/entry.js';
import { positionsOf } from '../domain/position.js';
import type { QueueDoc } from '../domain/queue.js';
import type { GitHost } from '../githost/githost.js';
import { commitStatusFor, commitStatusKey, QUEUED_KEY } from './commit-status.js';
import type { MergeEstimate } from '../domain/eta.js';
import { prCommentFor, prCommentKey } from './pr-comment.js';
import type { ReportChannel } from './reporter.js';

/**
 * The commit status `mergeq (<branch>)` on the PR head (`statusCheckEnabled`), with a queued PR's ETA.
 * `queuedAfterMs`: the queued status is said only of a PR still in the queue that long after it joined
 * (nothing said before): one that merges sooner hears the 👍 of its `/merge` and its merge, no status.
 */
export function statusChannel(gitHost: GitHost, estimates: (doc: QueueDoc) => Promise<ReadonlyMap<string, MergeEstimate>>, queuedAfterMs = 0): ReportChannel {
  return {
    name: 'status',
    enabled: (doc) => doc.settings.statusCheckEnabled && gitHost.kind !== 'none',
    key: commitStatusKey,
    holdMs: (entry, key) => (key === QUEUED_KEY && entry.reported?.status === undefined ? queuedAfterMs : 0),
    // A head not known yet (the git host could not be asked at submission) has nothing to carry it.
    speaksFor: (_doc, entry) => entry.prSha !== '',
    write: async (doc, entry) => {
      const eta = entry.state === 'PENDING' ? ((await estimates(doc)).get(entry.id)?.estimatedMergeAt ?? null) : null;
      await gitHost.reportStatus(doc.repo, entry.prSha, commitStatusFor(entry, positionsOf(doc).get(entry.id), doc.branch, eta));
    },
  };
}

/** The PR's one status comment per queue, edited in place (`commentsEnabled`). */
export function commentChannel(gitHost: GitHost): ReportChannel {
  return {
    name: 'comment',
    enabled: (doc) => doc.settings.commentsEnabled && gitHost.upsertPullRequestComment !== undefined,
    key: prCommentKey,
    // An earlier submission of a PR submitted again no longer speaks for it.
    speaksFor: (doc, entry) => latestSeq(doc.entries, entry.prNumber) === entry.seq,
    write: (doc, entry) => {
      const run = entry.state === 'FAILED' && entry.testRunId ? doc.runs.find((r) => r.id === entry.testRunId) : undefined;
      const comment = prCommentFor(entry, { branch: doc.branch, position: positionsOf(doc).get(entry.id), run });
      return gitHost.upsertPullRequestComment!(doc.repo, entry.prNumber, comment);
    },
  };
}

/** PR number -> the seq of its latest entry, once per document. */
const latestByDoc = new WeakMap<readonly Entry[], Map<number, number>>();

function latestSeq(entries: readonly Entry[], prNumber: number): number {
  let latest = latestByDoc.get(entries);
  if (!latest) {
    latest = new Map();
    for (const e of entries) latest.set(e.prNumber, Math.max(latest.get(e.prNumber) ?? e.seq, e.seq));
    latestByDoc.set(entries, latest);
  }
  return latest.get(prNumber) ?? -1;
}

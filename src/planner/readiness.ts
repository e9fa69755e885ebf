import type { Entry } from '../domain/entry.js';
import type { QueueSettings } from '../domain/settings.js';

/** Why an entry is not ready yet (NOT_READY -> PENDING needs all of these), or null when it is. */
export function notReadyBecause(entry: Entry, settings: QueueSettings): string | null {
  if (entry.hold) return entry.hold.message;
  const r = entry.readiness;
  if (!r.isOpen) return r.note ?? 'the pull request is not open';
  if (r.isDraft) return 'the pull request is a draft';
  // A stack member above the bottom is based on the member below it, not on the queue's branch.
  if (!r.doesBaseBranchMatch && !(entry.stack && entry.stack.position > 1)) return `the base branch ${entry.prBaseBranch} is not the queue's branch`;
  if (r.gitHubMergeability !== 'MERGEABLE') {
    return r.note ?? `the git host does not report it mergeable (${r.gitHubMergeability})`;
  }
  if (settings.mode === 'parallel' && !r.hasImpactedTargets) return 'no impacted targets for its head commit';
  return null;
}

/**
 * Why a PENDING entry lost its readiness, or null. Only definite losses count: a mergeability that is
 * being recomputed (IN_PROGRESS, UNSPECIFIED — every push to the target branch causes that) does not
 * cost a PR its place.
 */
export function readinessLost(entry: Entry, settings: QueueSettings): string | null {
  const r = entry.readiness;
  const unknownMergeability = r.gitHubMergeability === 'IN_PROGRESS' || r.gitHubMergeability === 'UNSPECIFIED';
  if (unknownMergeability && r.isOpen && !r.isDraft && r.doesBaseBranchMatch) {
    return settings.mode === 'parallel' && !r.hasImpactedTargets ? 'no impacted targets for its head commit' : null;
  }
  return notReadyBecause(entry, settings);
}

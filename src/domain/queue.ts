import type { Entry } from './entry.js';
import type { Freeze } from './merge-hold.js';
import { repoKey, type RepoRef } from './repo.js';
import type { TestRun } from './run.js';
import type { QueueMode, QueueSettings } from './settings.js';
import type { QueueStorm, StormWatch } from './storm.js';
import type { QueueState } from './states.js';

/** A unit is what the queue tests and decides as one: a single entry or a batch. */
export interface Unit {
  id: string;
  entryIds: string[];
  createdAt: string;
}

/**
 * One document per queue: settings, state, active entries, units and live runs. Every reconcile is a
 * single compare-and-set on `version`. Ended entries and finished runs that no live run refers to are
 * moved out to the archive (see QueueStore.commitQueue).
 */
export interface QueueDoc {
  id: string;
  orgId: string;
  repo: RepoRef;
  /** repoKey(repo): lower-case `host/owner/name`. */
  repoKey: string;
  branch: string;
  state: QueueState;
  /** While `switching_modes`: the mode being switched to and the state to return to. */
  switching: { toMode: QueueMode; returnTo: 'running' | 'paused' | 'draining' } | null;
  settings: QueueSettings;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** Next sequence number for entries, units and runs created in this queue. */
  nextSeq: number;
  /** Last known head of the target branch. */
  targetSha: string | null;
  /**
   * The target heads since it last moved by something other than the queue: the first is where it
   * stood then, each later one a merge the queue made. A run may merge only if the base it was built
   * on is here (it then lands on that base plus the queue's own merges). Absent in documents written
   * before it was kept: unknown, learnt at the next read of the head.
   */
  targetLineage?: LineageHead[];
  /**
   * When test results were first uploaded for one of the queue's runs. Until then its CI is not known
   * to upload any, and a failed run is decided at once rather than after `testResultsWaitSeconds`.
   */
  testResultsSeenAt?: string;
  /**
   * Branch protection refused the App's fast-forward of the target branch (no ruleset bypass): PRs
   * merge through the merge API until `at` is old enough to try again (FAST_FORWARD_RETRY_MS).
   */
  fastForwardRefused?: { at: string; message: string } | null;
  /** Set by freezeQueue, cleared by unfreezeQueue or by the planner once `endsAt` has passed. */
  freeze?: Freeze | null;
  /** The storm in force (docs/queue-rules.md, "Storms"), set and cleared by the planner; absent or null: none. */
  storm?: QueueStorm | null;
  /** The planner's ledger of recently ended runs, from which it derives `storm`. */
  stormWatch?: StormWatch;
  /** The template whose pattern the branch matched when a submit created the queue (queue-patterns.md). */
  createdFrom?: { pattern: string };
  /** `.github/mergeq.yml@<sha>` while the repository's file manages the settings; absent: `api`. */
  settingsSource?: string;
  entries: Entry[];
  units: Unit[];
  runs: TestRun[];
}

/** A head of the target branch in the queue's lineage; `entryId`: the entry whose merge made it. */
export interface LineageHead {
  sha: string;
  entryId?: string;
}

/** A queue with nothing in it yet: no entries, units or runs, the target head not read yet. */
export function newQueueDoc(q: {
  id: string;
  orgId: string;
  repo: RepoRef;
  branch: string;
  settings: QueueSettings;
  /** ISO time of creation. */
  at: string;
  state?: QueueState;
  version?: number;
  targetSha?: string | null;
  createdFrom?: { pattern: string };
  settingsSource?: string;
}): QueueDoc {
  return {
    id: q.id,
    orgId: q.orgId,
    repo: { host: q.repo.host, owner: q.repo.owner, name: q.repo.name },
    repoKey: repoKey(q.repo),
    branch: q.branch,
    state: q.state ?? 'running',
    switching: null,
    settings: q.settings,
    createdAt: q.at,
    updatedAt: q.at,
    version: q.version ?? 1,
    nextSeq: 1,
    targetSha: q.targetSha ?? null,
    entries: [],
    units: [],
    runs: [],
    ...(q.createdFrom ? { createdFrom: { ...q.createdFrom } } : {}),
    ...(q.settingsSource ? { settingsSource: q.settingsSource } : {}),
  };
}

/** The queue with `entry` in place of the entry of the same id. */
export function replaceEntry(queue: QueueDoc, entry: Entry): QueueDoc {
  return { ...queue, entries: queue.entries.map((e) => (e.id === entry.id ? entry : e)) };
}

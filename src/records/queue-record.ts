import { positionsOf } from '../domain/position.js';
import type { Entry } from '../domain/entry.js';
import type { MergeEstimate } from '../domain/eta.js';
import { enqueueRulesOf } from '../domain/enqueue-rules.js';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import { restartBudgetsOf, stormSettingsOf, type QueueSettings } from '../domain/settings.js';
import type { QueueStorm } from '../domain/storm.js';
import { API_SETTINGS_SOURCE } from '../domain/queue-template.js';
import { isActive, type QueueState } from '../domain/states.js';
import { mergeHoldRecord, type MergeHoldRecord } from './merge-hold-record.js';
import { toEnqueuedPullRequestRecord, type EnqueuedPullRequestRecord } from './pull-request-record.js';

/** The queue record (seed 2.3, plus `repo`, `createdAt`, `updatedAt` and settings beyond the seed). */
export interface QueueRecord extends Omit<QueueSettings, 'requiredStatuses'>, MergeHoldRecord {
  id: string;
  repo: RepoRef;
  branch: string;
  state: QueueState;
  /** The queue's own list; `[]` with source `branch_protection` when the queue has none. */
  requiredStatuses: string[];
  requiredStatusesSource: 'queue' | 'branch_protection';
  /** The storm in force (docs/queue-rules.md, "Storms"), or null. */
  storm: QueueStorm | null;
  enqueuedPullRequests: EnqueuedPullRequestRecord[];
  /**
   * How passed runs merge on GitHub: `fast_forward` (the target moves to the tested commit) or
   * `merge_api` (one PR at a time: squash and rebase queues, or branch protection refused the App's
   * fast-forward, which `fastForwardRefused` then says).
   */
  mergePath: 'fast_forward' | 'merge_api';
  fastForwardRefused: { at: string; message: string } | null;
  /** The template that created the queue at a PR's first submit to its branch (queue-patterns.md). */
  createdFrom: { pattern: string } | null;
  /** `api`, or `.github/mergeq.yml@<sha>` while the repository's file manages the settings (mergeq-yml.md). */
  settingsSource: string;
  createdAt: string;
  updatedAt: string;
}

/** `now`: the time the freeze and merge windows are read at. */
export function toQueueRecord(queue: QueueDoc, now: Date, estimates?: ReadonlyMap<string, MergeEstimate>): QueueRecord {
  return toQueueRecordPage(queue, now, estimates, 0, Infinity).record;
}

/** The queue record with `limit` enqueued pull requests from `offset` on, and how many there are. */
export function toQueueRecordPage(
  queue: QueueDoc,
  now: Date,
  estimates: ReadonlyMap<string, MergeEstimate> | undefined,
  offset: number,
  limit: number,
): { record: QueueRecord; total: number } {
  const s = queue.settings;
  const ordered = enqueuedInQueueOrder(queue);
  const record: QueueRecord = {
    id: queue.id,
    repo: { host: queue.repo.host, owner: queue.repo.owner, name: queue.repo.name },
    branch: queue.branch,
    state: queue.state,
    ...s,
    ...enqueueRulesOf(s),
    mergeWindows: s.mergeWindows ?? null,
    holdMode: s.holdMode ?? 'merge',
    restartBudgets: { ...restartBudgetsOf(s) },
    stormRuns: stormSettingsOf(s).runs,
    stormMinutes: stormSettingsOf(s).minutes,
    stormPause: stormSettingsOf(s).pause,
    storm: queue.storm ? structuredClone(queue.storm) : null,
    requiredStatuses: s.requiredStatuses ? [...s.requiredStatuses] : [],
    requiredStatusesSource: s.requiredStatuses ? 'queue' : 'branch_protection',
    enqueuedPullRequests: ordered
      .slice(offset, offset + limit)
      .map(({ entry, position }) => toEnqueuedPullRequestRecord(entry, position, estimates?.get(entry.id), queue)),
    mergePath: s.mergeMethod === 'merge_commit' && !queue.fastForwardRefused ? 'fast_forward' : 'merge_api',
    fastForwardRefused: queue.fastForwardRefused ? { ...queue.fastForwardRefused } : null,
    ...mergeHoldRecord(queue, now),
    createdFrom: queue.createdFrom ? { pattern: queue.createdFrom.pattern } : null,
    settingsSource: queue.settingsSource ?? API_SETTINGS_SOURCE,
    createdAt: queue.createdAt,
    updatedAt: queue.updatedAt,
  };
  return { record, total: ordered.length };
}

type Enqueued = readonly { entry: Entry; position: number | null }[];

/** Documents are never changed in place: the order of one holds for good (pages of a deep queue). */
const orderOf = new WeakMap<QueueDoc, Enqueued>();

/** Active entries: those with a position in queue order first, then the not-ready ones by submission. */
function enqueuedInQueueOrder(queue: QueueDoc): Enqueued {
  let ordered = orderOf.get(queue);
  if (!ordered) orderOf.set(queue, (ordered = inQueueOrder(queue)));
  return ordered;
}

function inQueueOrder(queue: QueueDoc): Enqueued {
  const positions = positionsOf(queue);
  const active = queue.entries.filter((e) => isActive(e.state));
  const positioned = active
    .filter((e) => positions.has(e.id))
    .sort((a, b) => (positions.get(a.id) ?? 0) - (positions.get(b.id) ?? 0));
  const waiting = active.filter((e) => !positions.has(e.id)).sort((a, b) => a.seq - b.seq);
  return [...positioned.map((entry) => ({ entry, position: positions.get(entry.id) ?? null })), ...waiting.map((entry) => ({ entry, position: null }))];
}

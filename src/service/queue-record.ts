import { positionsOf } from '../domain/position.js';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import type { DirectMergeMode, MergeMethod, OptimizationMode, QueueMode } from '../domain/settings.js';
import { isActive, type QueueState } from '../domain/states.js';
import { toEnqueuedPullRequestRecord, type EnqueuedPullRequestRecord } from './pull-request-record.js';

/** The queue record (seed 2.3, plus `repo`, `createdAt`, `updatedAt` and settings beyond the seed). */
export interface QueueRecord {
  id: string;
  repo: RepoRef;
  branch: string;
  state: QueueState;
  mode: QueueMode;
  concurrency: number;
  testingTimeoutMinutes: number;
  canOptimisticallyMerge: boolean;
  pendingFailureDepth: number;
  flakeRetries: number;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  bisectionConcurrency: number;
  createPrsForTestingBranches: boolean;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  /** The queue's own list; `[]` with source `branch_protection` when the queue has none. */
  requiredStatuses: string[];
  requiredStatusesSource: 'queue' | 'branch_protection';
  directMergeMode: DirectMergeMode;
  optimizationMode: OptimizationMode;
  mergeMethod: MergeMethod;
  enqueuedPullRequests: EnqueuedPullRequestRecord[];
  createdAt: string;
  updatedAt: string;
}

export function toQueueRecord(queue: QueueDoc): QueueRecord {
  const s = queue.settings;
  return {
    id: queue.id,
    repo: { host: queue.repo.host, owner: queue.repo.owner, name: queue.repo.name },
    branch: queue.branch,
    state: queue.state,
    mode: s.mode,
    concurrency: s.concurrency,
    testingTimeoutMinutes: s.testingTimeoutMinutes,
    canOptimisticallyMerge: s.canOptimisticallyMerge,
    pendingFailureDepth: s.pendingFailureDepth,
    flakeRetries: s.flakeRetries,
    batch: s.batch,
    batchingMaxWaitTimeMinutes: s.batchingMaxWaitTimeMinutes,
    batchingMinSize: s.batchingMinSize,
    bisectionConcurrency: s.bisectionConcurrency,
    createPrsForTestingBranches: s.createPrsForTestingBranches,
    commentsEnabled: s.commentsEnabled,
    commandsEnabled: s.commandsEnabled,
    statusCheckEnabled: s.statusCheckEnabled,
    requiredStatuses: s.requiredStatuses ? [...s.requiredStatuses] : [],
    requiredStatusesSource: s.requiredStatuses ? 'queue' : 'branch_protection',
    directMergeMode: s.directMergeMode,
    optimizationMode: s.optimizationMode,
    mergeMethod: s.mergeMethod,
    enqueuedPullRequests: enqueuedInQueueOrder(queue),
    createdAt: queue.createdAt,
    updatedAt: queue.updatedAt,
  };
}

/** Active entries: those with a position in queue order first, then the not-ready ones by submission. */
function enqueuedInQueueOrder(queue: QueueDoc): EnqueuedPullRequestRecord[] {
  const positions = positionsOf(queue);
  const active = queue.entries.filter((e) => isActive(e.state));
  const positioned = active
    .filter((e) => positions.has(e.id))
    .sort((a, b) => (positions.get(a.id) ?? 0) - (positions.get(b.id) ?? 0));
  const waiting = active.filter((e) => !positions.has(e.id)).sort((a, b) => a.seq - b.seq);
  return [
    ...positioned.map((e) => toEnqueuedPullRequestRecord(e, positions.get(e.id) ?? null)),
    ...waiting.map((e) => toEnqueuedPullRequestRecord(e, null)),
  ];
}

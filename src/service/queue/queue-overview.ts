import type { Entry } from '../../domain/entry.js';
import { holdForEstimates, type EstimateHold } from '../../domain/eta-hold.js';
import { latestVerdict } from '../../domain/verdict/attach.js';
import type { Verdict } from '../../domain/verdict/verdict.js';
import type { Org } from '../../domain/org.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { Reason } from '../../domain/reasons.js';
import { repoKey, type RepoRef } from '../../domain/repo.js';
import { isActive, type PrState, type QueueState } from '../../domain/states.js';
import type { Clock } from '../../domain/clock.js';
import type { QueueStore } from '../../store/store.js';
import { notFound } from '../errors.js';
import { toReasonRecord } from '../../records/pull-request-record.js';
import { assertOwnsRepo } from '../access/tenancy.js';
import { isInFlight } from '../../domain/run.js';

const HOUR_MS = 3_600_000;
/** How far back the queue page lists the PRs that left the queue, and how many at most. */
const ENDED_WINDOW_MS = 24 * HOUR_MS;
const MAX_ENDED = 100;
const ENDED_SHOWN: ReadonlySet<PrState> = new Set<PrState>(['MERGED', 'FAILED']);

/** One line of the web page's queue list. */
export interface QueueSummary {
  repo: RepoRef;
  branch: string;
  state: QueueState;
  mode: string;
  depth: number;
  runsInFlight: number;
  mergedLastHour: number;
  failedLastHour: number;
  /** Median submission-to-merge time of the PRs merged in the last hour; null when none merged. */
  p50TimeInQueueSeconds: number | null;
  /** The freeze or closed merge windows holding its merges now, and their end; null when it may merge. */
  mergeHold: EstimateHold | null;
  /** Changes with every write of the queue: the page reloads a queue when it moves. */
  version: number;
}

/** A pull request that merged or failed lately: what the queue page lists under the queue. */
export interface EndedPullRequest {
  prNumber: number;
  prTitle: string;
  prAuthor: string;
  state: PrState;
  endedAt: string;
  reason: Reason | null;
  /** Who broke what (docs/verdicts.md); null when nothing removed or restarted it. */
  verdict: Verdict | null;
}

/** The organization's queues at a glance (the web page's first screen). Only the caller's own queues. */
export class QueueOverviewService {
  constructor(private readonly deps: { store: { queues: QueueStore }; clock: Clock }) {}

  async listQueues(org: Org): Promise<QueueSummary[]> {
    const queues = await this.deps.store.queues.listQueues({ orgId: org.id });
    const now = this.deps.clock.now();
    const since = new Date(now.getTime() - HOUR_MS).toISOString();
    const ended = queues.length ? await this.deps.store.queues.archivedEntriesEndedSince(queues.map((q) => q.id), since) : [];
    return queues
      .map((q) => summarize(q, ended.filter((e) => e.queueId === q.id), now))
      .sort((a, b) => `${a.repo.owner}/${a.repo.name}:${a.branch}`.localeCompare(`${b.repo.owner}/${b.repo.name}:${b.branch}`));
  }

  /** The queue's PRs that merged or failed in the last 24 hours, the latest first (at most 100). */
  async recentlyEnded(org: Org, ref: { repo: RepoRef; targetBranch: string }): Promise<EndedPullRequest[]> {
    assertOwnsRepo(org, ref.repo);
    const key = repoKey(ref.repo);
    const queue = await this.deps.store.queues.getQueue(key, ref.targetBranch);
    if (!queue) throw notFound.queue(key, ref.targetBranch);
    const since = new Date(this.deps.clock.now().getTime() - ENDED_WINDOW_MS).toISOString();
    // Ended entries stay in the document until the engine's next commit archives them.
    const archived = await this.deps.store.queues.archivedEntriesEndedSince([queue.id], since);
    const byId = new Map<string, Entry>();
    for (const e of [...archived, ...queue.entries]) if (ENDED_SHOWN.has(e.state) && e.stateChangedAt >= since) byId.set(e.id, e);
    return [...byId.values()]
      .sort((a, b) => (a.stateChangedAt < b.stateChangedAt ? 1 : a.stateChangedAt > b.stateChangedAt ? -1 : b.seq - a.seq))
      .slice(0, MAX_ENDED)
      .map((e) => ({
        prNumber: e.prNumber,
        prTitle: e.prTitle,
        prAuthor: e.prAuthor,
        state: e.state,
        endedAt: e.stateChangedAt,
        reason: e.reason ? toReasonRecord(e.reason) : null,
        verdict: latestVerdict(e),
      }));
  }

  /** Versions of the caller's queues, keyed by id: what the live event stream compares. */
  async versions(org: Org): Promise<Map<string, number>> {
    const queues = await this.deps.store.queues.listQueues({ orgId: org.id });
    return new Map(queues.map((q) => [q.id, q.version]));
  }
}

function summarize(queue: QueueDoc, endedLastHour: { state: string; submittedAt: string; stateChangedAt: string }[], now: Date): QueueSummary {
  const merged = endedLastHour.filter((e) => e.state === 'MERGED');
  const waits = merged.map((e) => (Date.parse(e.stateChangedAt) - Date.parse(e.submittedAt)) / 1000).sort((a, b) => a - b);
  return {
    repo: { host: queue.repo.host, owner: queue.repo.owner, name: queue.repo.name },
    branch: queue.branch,
    state: queue.state,
    mode: queue.settings.mode,
    depth: queue.entries.filter((e) => isActive(e.state)).length,
    runsInFlight: queue.runs.filter(isInFlight).length,
    mergedLastHour: merged.length,
    failedLastHour: endedLastHour.filter((e) => e.state === 'FAILED').length,
    p50TimeInQueueSeconds: waits.length ? Math.round(waits[Math.floor((waits.length - 1) / 2)]!) : null,
    mergeHold: holdForEstimates(queue, now)?.shown ?? null,
    version: queue.version,
  };
}

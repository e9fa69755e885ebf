import type { Org } from '../domain/org.js';
import type { QueueDoc } from '../domain/queue.js';
import type { RepoRef } from '../domain/repo.js';
import { isActive, type QueueState } from '../domain/states.js';
import type { Clock } from '../domain/clock.js';
import type { Store } from '../store/store.js';
import { isInFlight } from './test-run-record.js';

const HOUR_MS = 3_600_000;

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
  /** Changes with every write of the queue: the page reloads a queue when it moves. */
  version: number;
}

/** The organization's queues at a glance (the web page's first screen). Only the caller's own queues. */
export class QueueOverviewService {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async listQueues(org: Org): Promise<QueueSummary[]> {
    const queues = await this.deps.store.listQueues({ orgId: org.id });
    const since = new Date(this.deps.clock.now().getTime() - HOUR_MS).toISOString();
    const ended = queues.length ? await this.deps.store.archivedEntriesEndedSince(queues.map((q) => q.id), since) : [];
    return queues
      .map((q) => summarize(q, ended.filter((e) => e.queueId === q.id)))
      .sort((a, b) => `${a.repo.owner}/${a.repo.name}:${a.branch}`.localeCompare(`${b.repo.owner}/${b.repo.name}:${b.branch}`));
  }

  /** Versions of the caller's queues, keyed by id: what the live event stream compares. */
  async versions(org: Org): Promise<Map<string, number>> {
    const queues = await this.deps.store.listQueues({ orgId: org.id });
    return new Map(queues.map((q) => [q.id, q.version]));
  }
}

function summarize(queue: QueueDoc, endedLastHour: { state: string; submittedAt: string; stateChangedAt: string }[]): QueueSummary {
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
    version: queue.version,
  };
}

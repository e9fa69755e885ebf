import { targetNameBytes } from '../../domain/retention.js';
import type { Entry } from '../../domain/entry.js';
import type { QueueDoc } from '../../domain/queue.js';
import type { TestRun } from '../../domain/run.js';
import type { ImpactedTargets } from '../../domain/targets.js';
import { ConflictError } from '../errors.js';
import { deepFreeze } from '../queue-rows.js';
import type { Archive, PutTargetsOptions, RunFilter, Store, TargetsHead } from '../store.js';
import { MemoryFlakyTables } from './memory-flaky-tables.js';
import { MemoryOrgTables } from './memory-orgs.js';
import { MemoryInbox } from './memory-inbox.js';
import { MemoryTemplates } from './memory-templates.js';
import { MemoryOutbox } from './memory-outbox.js';
import { MemoryLeases } from './memory-leases.js';
import type { OutboxEvent } from '../../events/event-types.js';

/**
 * The store of the simulator (and of tests that need no file): everything in one process's memory.
 * Queue documents, archived entries and runs and target lists are kept frozen and handed out shared,
 * as the other adapters hand out queues, since a copy per read made long simulations slow.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  private readonly queues = new Map<string, QueueDoc>();
  private readonly entries = new Map<string, Entry>();
  private readonly runs = new Map<string, TestRun>();
  private readonly targets = new Map<string, { repoKey: string; prNumber: number; sha: string; list: ImpactedTargets; usedAt: string; bytes: number }>();
  readonly outbox = new MemoryOutbox();
  readonly inbox = new MemoryInbox();
  readonly templates = new MemoryTemplates();
  private readonly flaky = new MemoryFlakyTables(this.outbox);
  private readonly orgs = new MemoryOrgTables();
  private readonly leases = new MemoryLeases();

  async ping(): Promise<void> {}
  async close(): Promise<void> {}

  async insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void> {
    if ([...this.queues.values()].some((q) => q.repoKey === queue.repoKey && q.branch === queue.branch)) {
      throw new ConflictError(`a queue exists for ${queue.repoKey} ${queue.branch}`);
    }
    this.queues.set(queue.id, deepFreeze(structuredClone(queue)));
    this.outbox.insertEvents(events);
  }

  async getQueue(repoKey: string, branch: string): Promise<QueueDoc | null> {
    return [...this.queues.values()].find((q) => q.repoKey === repoKey && q.branch === branch) ?? null;
  }

  async getQueueById(id: string): Promise<QueueDoc | null> {
    return this.queues.get(id) ?? null;
  }

  async listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]> {
    return [...this.queues.values()].filter(
      (q) => (filter.orgId === undefined || q.orgId === filter.orgId) && (filter.repoKey === undefined || q.repoKey === filter.repoKey),
    );
  }

  async commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean> {
    if (queue.version !== expectedVersion + 1) throw new Error(`version must be ${expectedVersion + 1}, not ${queue.version}`);
    for (const e of archive?.entries ?? []) this.entries.set(e.id, deepFreeze(e));
    for (const r of archive?.runs ?? []) this.runs.set(r.id, deepFreeze(r));
    const current = this.queues.get(queue.id);
    if (!current || current.version !== expectedVersion) return false;
    this.queues.set(queue.id, freezeOver(current, queue));
    this.outbox.insertEvents(archive?.events);
    return true;
  }

  async deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean> {
    if (this.queues.get(id)?.version !== expectedVersion) return false;
    this.outbox.insertEvents(events);
    return this.queues.delete(id);
  }

  async latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null> {
    let latest: Entry | null = null;
    for (const e of this.entries.values()) if (e.queueId === queueId && e.prNumber === prNumber && (!latest || e.seq > latest.seq)) latest = e;
    return latest;
  }

  async archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]> {
    const ids = new Set(queueIds);
    return [...this.entries.values()].filter((e) => ids.has(e.queueId) && e.stateChangedAt >= since);
  }

  async archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]> {
    return [...this.runs.values()]
      .filter(
        (r) =>
          r.queueId === queueId &&
          (filter.runId === undefined || r.id === filter.runId) &&
          (filter.prNumber === undefined || r.prs.some((p) => p.prNumber === filter.prNumber)) &&
          (filter.finishedSince === undefined || (r.finishedAt !== null && r.finishedAt >= filter.finishedSince)),
      )
      .sort(newestFirst);
  }

  async putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options: PutTargetsOptions = {}): Promise<void> {
    const key = `${repoKey}#${prNumber}#${sha}`;
    const bytes = targets.all ? 0 : targetNameBytes(targets.targets);
    this.targets.set(key, { repoKey, prNumber, sha, list: deepFreeze(targets.all ? { all: true } : { all: false, targets: targets.targets.slice() }), usedAt: options.at ?? new Date().toISOString(), bytes });
    if (options.maxBytesPerRepo === undefined) return;
    const ofRepo = [...this.targets.entries()].filter(([, t]) => t.repoKey === repoKey).sort(([, a], [, b]) => (a.usedAt < b.usedAt ? -1 : a.usedAt > b.usedAt ? 1 : 0));
    let total = ofRepo.reduce((sum, [, t]) => sum + t.bytes, 0);
    for (const [k, t] of ofRepo) {
      if (total <= options.maxBytesPerRepo) break;
      if (k === key) continue;
      this.targets.delete(k);
      total -= t.bytes;
    }
  }

  async getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null> {
    return this.targets.get(`${repoKey}#${prNumber}#${sha}`)?.list ?? null;
  }

  async touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void> {
    for (const head of heads) {
      const t = this.targets.get(`${repoKey}#${head.prNumber}#${head.sha}`);
      if (t && t.usedAt < at) t.usedAt = at;
    }
  }

  async pruneImpactedTargets(unusedSince: string): Promise<number> {
    let pruned = 0;
    for (const [k, t] of this.targets) if (t.usedAt < unusedSince && this.targets.delete(k)) pruned++;
    return pruned;
  }

  async pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }> {
    let entries = 0;
    let runs = 0;
    for (const [id, e] of this.entries) if (e.stateChangedAt < endedBefore && this.entries.delete(id)) entries++;
    for (const [id, r] of this.runs) if ((r.finishedAt ?? r.createdAt) < endedBefore && this.runs.delete(id)) runs++;
    return { entries, runs };
  }

  // Flaky-test data (memory-flaky-tables.ts)
  getTestUpload = this.flaky.getTestUpload.bind(this.flaky);
  commitTestUpload = this.flaky.commitTestUpload.bind(this.flaky);
  getTestCases = this.flaky.getTestCases.bind(this.flaky);
  existingTestCaseIds = this.flaky.existingTestCaseIds.bind(this.flaky);
  testCasesToWatch = this.flaky.testCasesToWatch.bind(this.flaky);
  writeTestCases = this.flaky.writeTestCases.bind(this.flaky);
  testResults = this.flaky.testResults.bind(this.flaky);
  detectionResults = this.flaky.detectionResults.bind(this.flaky);
  testCaseEvents = this.flaky.testCaseEvents.bind(this.flaky);
  getFlakySettings = this.flaky.getFlakySettings.bind(this.flaky);
  putFlakySettings = this.flaky.putFlakySettings.bind(this.flaky);
  testCaseCounts = this.flaky.testCaseCounts.bind(this.flaky);
  upsertTestCase = this.flaky.upsertTestCase.bind(this.flaky);
  getTestCase = this.flaky.getTestCase.bind(this.flaky);
  listQuarantinedTests = this.flaky.listQuarantinedTests.bind(this.flaky);
  listFlakyTests = this.flaky.listFlakyTests.bind(this.flaky);

  takeLease = this.leases.takeLease.bind(this.leases);
  releaseLease = this.leases.releaseLease.bind(this.leases);

  // Organizations, tokens, secrets and deliveries (memory-orgs.ts)
  createOrg = this.orgs.createOrg.bind(this.orgs);
  getOrgById = this.orgs.getOrgById.bind(this.orgs);
  getOrgBySlug = this.orgs.getOrgBySlug.bind(this.orgs);
  findOrgByOwner = this.orgs.findOrgByOwner.bind(this.orgs);
  listOrgs = this.orgs.listOrgs.bind(this.orgs);
  addOrgOwner = this.orgs.addOrgOwner.bind(this.orgs);
  createToken = this.orgs.createToken.bind(this.orgs);
  findTokenByHash = this.orgs.findTokenByHash.bind(this.orgs);
  getToken = this.orgs.getToken.bind(this.orgs);
  listTokens = this.orgs.listTokens.bind(this.orgs);
  revokeToken = this.orgs.revokeToken.bind(this.orgs);
  touchToken = this.orgs.touchToken.bind(this.orgs);
  getOrCreateSecret = this.orgs.getOrCreateSecret.bind(this.orgs);
  claimWebhookDelivery = this.orgs.claimWebhookDelivery.bind(this.orgs);
  releaseWebhookDelivery = this.orgs.releaseWebhookDelivery.bind(this.orgs);
}

/** As the SQL adapters order runs: finishedAt descending (unfinished last), createdAt descending, id. */
function newestFirst(a: TestRun, b: TestRun): number {
  if (a.finishedAt !== b.finishedAt) return a.finishedAt === null ? 1 : b.finishedAt === null ? -1 : a.finishedAt < b.finishedAt ? 1 : -1;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Freezes `next`, skipping the items it shares with `prev` at the same place (frozen already). */
function freezeOver(prev: QueueDoc, next: QueueDoc): QueueDoc {
  const freezeItems = <T>(items: readonly T[], old: readonly T[]) => {
    if (Object.isFrozen(items)) return;
    Object.freeze(items);
    for (let i = 0; i < items.length; i++) if (items[i] !== old[i]) deepFreeze(items[i]);
  };
  freezeItems(next.entries, prev.entries);
  freezeItems(next.runs, prev.runs);
  freezeItems(next.units, prev.units);
  return deepFreeze(next);
}

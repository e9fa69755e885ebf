import type { Entry } from '../domain/entry.js';
import type { ApiToken, Org } from '../domain/org.js';
import type { QueueDoc } from '../domain/queue.js';
import type { DetectionScope, FlakySettings, TestCaseEvent, TestResult, TestUpload } from '../domain/flaky.js';
import type { TestCase } from '../domain/quarantine.js';
import type { TestRun } from '../domain/run.js';
import type { ImpactedTargets } from '../domain/targets.js';
import type { OutboxEvent } from '../events/event-types.js';
import type { InboxStore } from './inbox-store.js';
import type { OutboxStore } from './outbox-store.js';
import type { LeaseStore } from './lease-store.js';
import type { QueueTemplateStore } from './template-store.js';

export type { Lease, LeaseStore } from './lease-store.js';

/** Ended entries and finished runs moved out of a queue document when it is committed. */
export interface Archive {
  entries?: Entry[];
  runs?: TestRun[];
  /** Outbound events of this commit (src/events): stored with it or not at all. */
  events?: OutboxEvent[];
}

export interface RunFilter {
  runId?: string;
  prNumber?: number;
  finishedSince?: string;
}

/** Everything one accepted upload writes, at once. */
export interface TestUploadWrite {
  upload: TestUpload;
  results: TestResult[];
  /** New and changed test cases. */
  testCases: TestCase[];
  events: TestCaseEvent[];
  /** Results of the repository older than this (ISO time) may be dropped at the same time. */
  keepResultsSince: string;
  /** The organization that uploaded: its outbox events are kept only while it has a webhook. */
  orgId?: string;
  /**
   * The stored test cases this write was decided on, as read: each must still be stored so (else
   * another writer, a person's quarantine setting for one, changed it since), or nothing is written.
   */
  asRead?: TestCase[];
}

export interface TestCaseCounts {
  repoKey: string;
  flaky: number;
  broken: number;
  quarantined: number;
}

/** Flaky-test data: uploads, results, test cases, their history, per-repository settings. */
export interface FlakyTestStore {
  getTestUpload(repoKey: string, uploadId: string): Promise<TestUpload | null>;
  /**
   * Stores an upload with its results, test cases and events. Returns false, writing nothing, when
   * that repository already has an upload with this uploadId; LOST, writing nothing, when a test case
   * of `asRead` changed since it was read (the caller decides again on what is stored now).
   */
  commitTestUpload(write: TestUploadWrite): Promise<boolean | typeof LOST>;
  getTestCases(repoKey: string, testCaseIds: string[]): Promise<TestCase[]>;
  /** Which of these test cases exist (without reading them: an upload names thousands). */
  existingTestCaseIds(repoKey: string, testCaseIds: string[]): Promise<string[]>;
  /** Test cases that are not healthy, are quarantined, or failed at or after `failedSince`. */
  testCasesToWatch(repoKey: string, failedSince: string): Promise<TestCase[]>;
  /**
   * Stores changed test cases and appends their events. The outbox events go to `orgId`'s webhooks
   * (none are kept when it has none); without it, to those of the repository's owner.
   */
  writeTestCases(testCases: TestCase[], events: TestCaseEvent[], orgId?: string): Promise<void>;
  /**
   * Compare-and-set: stores `next` (and appends `events`, as writeTestCases) only while the stored test
   * case is still `expected` as read. False when another writer changed it first, or it is gone.
   */
  updateTestCase(expected: TestCase, next: TestCase, events: TestCaseEvent[], orgId?: string): Promise<boolean>;
  /** Results of these test cases at or after `since`, oldest first (ties of one test case in insertion order). */
  testResults(repoKey: string, testCaseIds: string[], since: string): Promise<TestResult[]>;
  /**
   * Of those results, the ones the detector reads at each upload (`isDetectionEvidence`, with the
   * commits of `latestFlakyCommits` of each test case): they must not cost a long history.
   */
  detectionResults(repoKey: string, testCaseIds: string[], since: string, scope: DetectionScope): Promise<TestResult[]>;
  /** A test case's history, oldest first. */
  testCaseEvents(repoKey: string, testCaseId: string): Promise<TestCaseEvent[]>;
  getFlakySettings(repoKey: string): Promise<FlakySettings | null>;
  /** Unconditionally: for seeding and tests; a change of live settings uses `updateFlakySettings`. */
  putFlakySettings(repoKey: string, settings: FlakySettings): Promise<void>;
  /**
   * Compare-and-set: stores `next` only while the stored settings are still `expected` as read (null:
   * none stored yet, and then none is). False when another writer changed them first.
   */
  updateFlakySettings(repoKey: string, expected: FlakySettings | null, next: FlakySettings): Promise<boolean>;
  /** Per repository with any test case whose `host/owner` (ownerKey) is one of `ownerKeys`, by repoKey. */
  testCaseCounts(ownerKeys: string[]): Promise<TestCaseCounts[]>;
}

/** A PR head whose impacted-target list a queued entry may still need. */
export interface TargetsHead {
  prNumber: number;
  sha: string;
}

export interface PutTargetsOptions {
  /** When the list was put (ISO); now by default. It counts as used at that time. */
  at?: string;
  /**
   * Bytes of target names one repository may hold: after this put, its least recently used other
   * lists are dropped until the total fits. No cap when absent.
   */
  maxBytesPerRepo?: number;
}

/** Queues (the documents the engine reconciles) and the archive of what left them. */
export interface QueueStore {
  /** Throws ConflictError when a queue exists for (repoKey, branch). Stores a copy of `queue`; `events` are stored with it. */
  insertQueue(queue: QueueDoc, events?: OutboxEvent[]): Promise<void>;
  /**
   * Queue reads return the stored document itself, deeply frozen and shared with other readers:
   * read-only (changing it throws). Change a queue by committing a new document.
   */
  getQueue(repoKey: string, branch: string): Promise<QueueDoc | null>;
  getQueueById(id: string): Promise<QueueDoc | null>;
  listQueues(filter: { orgId?: string; repoKey?: string }): Promise<QueueDoc[]>;
  /**
   * Compare-and-set: stores `queue` only if the stored version is `expectedVersion`; `queue.version`
   * must be `expectedVersion + 1`. The archive and its outbound events are stored with the commit or
   * not at all: in the same transaction where the adapter has one, else written first and removed
   * again when the version check is lost (mongo/archive-writes.ts). Returns false on a version conflict.
   *
   * The store takes `queue` over: it is deeply frozen and becomes what reads return. Entries and runs
   * that are the very objects of the document last read or committed count as unchanged and are not
   * written again (see queue-rows.ts): build a new document by copying what changes, as the pure
   * changes of the domain and planner do.
   */
  commitQueue(queue: QueueDoc, expectedVersion: number, archive?: Archive): Promise<boolean>;
  /** Compare-and-set delete. Returns false on a version conflict or when it is gone. `events` are stored with it. */
  deleteQueue(id: string, expectedVersion: number, events?: OutboxEvent[]): Promise<boolean>;

  /** The most recent archived entry (highest seq) for that PR in that queue. */
  latestArchivedEntry(queueId: string, prNumber: number): Promise<Entry | null>;
  /** Archived entries whose stateChangedAt is at or after `since`. */
  archivedEntriesEndedSince(queueIds: string[], since: string): Promise<Entry[]>;
  /** Archived runs of a queue matching the filter, newest first. */
  archivedRuns(queueId: string, filter: RunFilter): Promise<TestRun[]>;
  /** Deletes archived entries that ended, and runs that finished, before `endedBefore`. */
  pruneHistory(endedBefore: string): Promise<{ entries: number; runs: number }>;
}

/** Impacted targets: large, kept out of the queue document, keyed by PR head SHA. */
export interface TargetStore {
  putImpactedTargets(repoKey: string, prNumber: number, sha: string, targets: ImpactedTargets, options?: PutTargetsOptions): Promise<void>;
  getImpactedTargets(repoKey: string, prNumber: number, sha: string): Promise<ImpactedTargets | null>;
  /** Marks the lists of these heads (those that exist) as used at `at`. */
  touchImpactedTargets(repoKey: string, heads: readonly TargetsHead[], at: string): Promise<void>;
  /** Deletes every list last put or used before `unusedSince`; returns how many. */
  pruneImpactedTargets(unusedSince: string): Promise<number>;
}

export interface OrgStore {
  /** Throws ConflictError when the slug or one of the owners is taken. */
  createOrg(org: Org): Promise<void>;
  getOrgById(id: string): Promise<Org | null>;
  getOrgBySlug(slug: string): Promise<Org | null>;
  /** The organization owning `host/owner` (ownerKey), if any. */
  findOrgByOwner(ownerKey: string): Promise<Org | null>;
  /** Every organization, by slug (`mergeq org list`). */
  listOrgs(): Promise<Org[]>;
  /** Throws ConflictError when another organization owns it; no-op when this one does. */
  addOrgOwner(orgId: string, ownerKey: string): Promise<void>;
  createToken(token: ApiToken): Promise<void>;
  findTokenByHash(hash: string): Promise<ApiToken | null>;
  getToken(id: string): Promise<ApiToken | null>;
  listTokens(orgId: string): Promise<ApiToken[]>;
  /** Returns false when no such token exists; revoking twice keeps the first time. */
  revokeToken(id: string, at: string): Promise<boolean>;
  touchToken(id: string, at: string): Promise<void>;
}

/** Test cases (flaky-test detection and quarantine) and the rest of the flaky-test data. */
export interface TestCaseStore extends FlakyTestStore {
  upsertTestCase(testCase: TestCase): Promise<void>;
  getTestCase(repoKey: string, testCaseId: string): Promise<TestCase | null>;
  /** Quarantined tests (quarantinedAt not null): most recently quarantined first, ties by testCaseId. */
  listQuarantinedTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }>;
  /** Tests that are flaky, broken or quarantined: most recent status change first, ties by testCaseId. */
  listFlakyTests(repoKey: string, page: { offset: number; limit: number }): Promise<{ rows: TestCase[]; total: number }>;
}

/** What the server itself keeps: its secrets and the webhook deliveries it has handled. */
export interface ServerStore {
  /**
   * A named server secret (e.g. the key that signs page tokens), created on first use and then the
   * same for every process sharing the store. Concurrent first calls agree on one value.
   */
  getOrCreateSecret(name: string, create: () => string): Promise<string>;
  /**
   * Claims a webhook delivery id: true the first time it is seen, false for a redelivery. Ids older
   * than `keepSince` (ISO time) may be forgotten at the same time, so the table stays small.
   */
  claimWebhookDelivery(deliveryId: string, at: string, keepSince: string): Promise<boolean>;
  /** Gives a claimed delivery id back (its handling failed), so a redelivery is handled. */
  releaseWebhookDelivery(deliveryId: string): Promise<void>;
}

/**
 * The storage port: a record of the roles above, for wiring. Each consumer takes only the roles it
 * uses (`{ queues: QueueStore; targets: TargetStore }`); only the wiring (server, sim, bench, the
 * CLI's with-store.ts) names the whole Store (test/architecture/layering.test.ts). Three adapters
 * (sqlite, mongo, and memory for the simulator) pass one contract suite. Values are plain
 * JSON-compatible objects; apart from queues (see QueueStore), adapters copy what they are given and
 * return fresh copies.
 */
export interface Store {
  readonly kind: 'sqlite' | 'mongo' | 'memory';
  readonly queues: QueueStore;
  readonly targets: TargetStore;
  readonly orgs: OrgStore;
  readonly tests: TestCaseStore;
  readonly server: ServerStore;
  readonly leases: LeaseStore;
  /** Outbound webhooks: subscriptions, the event outbox, deliveries. */
  readonly outbox: OutboxStore;
  /** GitHub webhook deliveries received and not yet handled. */
  readonly inbox: InboxStore;
  /** Queue templates for branch patterns. */
  readonly templates: QueueTemplateStore;
  /** Resolves when the store answers; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What an attempt of `retryOnConflict` answers when its conditional write found the record changed. */
export const LOST = Symbol('lost');

/** Conditional writes of one change lost in a row before it gives up (a queue commit's budget too). */
export const MAX_WRITE_CONFLICTS = 20;

/** A record changed concurrently more often than the budget allows; the caller may retry later. */
export class BusyError extends Error {
  constructor(what: string) {
    super(`${what} changed concurrently ${MAX_WRITE_CONFLICTS} times in a row; retry later`);
    this.name = 'BusyError';
  }
}

/**
 * Runs `attempt` — read the record, decide, write under a condition — again while its write finds the
 * record changed since it was read (it answers LOST). Every replica's change of a shared record goes
 * through such a loop: a lock inside one process only makes conflicts rarer.
 */
export async function retryOnConflict<T>(what: string, attempt: () => Promise<T | typeof LOST>): Promise<T> {
  for (let i = 0; i < MAX_WRITE_CONFLICTS; i++) {
    const result = await attempt();
    if (result !== LOST) return result;
  }
  throw new BusyError(what);
}

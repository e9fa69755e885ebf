import { randomUUID } from 'node:crypto';
import { initialReadiness, type Entry } from '../../src/domain/entry.js';
import type { ApiToken, Org } from '../../src/domain/org.js';
import { newQueueDoc, type QueueDoc } from '../../src/domain/queue.js';
import type { TestCase } from '../../src/domain/quarantine.js';
import { reason } from '../../src/domain/reasons.js';
import { testBranchName, type TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';

/** Small builders of valid domain objects; each test overrides only what it is about. */

export const T0 = '2026-11-22T10:00:00.000Z';

/** T0 plus `minutes`, as an ISO timestamp. */
export function at(minutes: number): string {
  return new Date(Date.parse(T0) + minutes * 60_000).toISOString();
}

export function anOrg(overrides: Partial<Org> = {}): Org {
  const slug = overrides.slug ?? `org-${randomUUID().slice(0, 8)}`;
  return { id: randomUUID(), slug, owners: [`github.com/${slug}`], createdAt: T0, ...overrides };
}

export function aToken(orgId: string, overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: randomUUID(),
    orgId,
    name: 'ci',
    hash: randomUUID().replace(/-/g, '').repeat(2),
    prefix: 'mq_abcdef',
    createdAt: T0,
    revokedAt: null,
    lastUsedAt: null,
    ...overrides,
  };
}

export function aQueue(overrides: Partial<QueueDoc> = {}): QueueDoc {
  const repo = overrides.repo ?? { host: 'github.com', owner: 'acme', name: 'widgets' };
  return { ...newQueueDoc({ id: randomUUID(), orgId: 'org-1', repo, branch: 'main', settings: defaultSettings(), at: T0 }), ...overrides };
}

export function anEntry(queueId: string, overrides: Partial<Entry> = {}): Entry {
  const prNumber = overrides.prNumber ?? 1;
  const submitted = reason('submitted', 'submitted to the queue');
  return {
    id: randomUUID(),
    queueId,
    seq: 1,
    prNumber,
    prTitle: `PR #${prNumber}`,
    prSha: `sha-${prNumber}`,
    prBaseBranch: 'main',
    prAuthor: 'octocat',
    state: 'PENDING',
    stateChangedAt: T0,
    submittedAt: T0,
    readyAt: T0,
    priorityValue: 100,
    priorityName: 'medium',
    usedDefaultPriorityName: 'medium',
    noBatch: false,
    readiness: initialReadiness(),
    reason: submitted,
    testRunId: null,
    retriesUsed: 0,
    mergeIntent: null,
    mergeCommitSha: null,
    history: [{ state: 'NOT_READY', at: T0, reason: submitted }],
    ...overrides,
  };
}

/** An ended entry, as the engine archives it. */
export function anEndedEntry(queueId: string, overrides: Partial<Entry> = {}): Entry {
  return anEntry(queueId, { state: 'MERGED', reason: reason('merged', 'merged'), ...overrides });
}

export function aRun(queueId: string, prNumbers: number[], overrides: Partial<TestRun> = {}): TestRun {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    queueId,
    kind: 'main',
    status: 'passed',
    unitId: randomUUID(),
    prs: prNumbers.map((n) => ({ entryId: randomUUID(), prNumber: n, prSha: `sha-${n}`, prTitle: `PR #${n}` })),
    dependencyEntryIds: [],
    attempt: 0,
    testBranch: testBranchName('main', id),
    testBranchSha: 'test-sha',
    baseSha: 'base-sha',
    createdAt: T0,
    finishedAt: at(30),
    requiredStatuses: ['ci'],
    requiredStatusesSource: 'queue',
    statusChecks: [{ context: 'ci', state: 'success', url: null }],
    conflictEntryId: null,
    cancelReason: null,
    cleanedUp: false,
    ...overrides,
  };
}

export function aTestCase(repo: string, overrides: Partial<TestCase> = {}): TestCase {
  return {
    testCaseId: randomUUID(),
    repoKey: repo,
    name: 'adds numbers',
    parent: 'math',
    file: 'test/math.test.ts',
    classname: null,
    variant: null,
    codeowners: [],
    status: 'flaky',
    statusLastUpdatedAt: T0,
    quarantineSetting: 'auto',
    quarantinedAt: T0,
    ...overrides,
  };
}

/** A queue document holding `n` active entries, each with a few transitions: a realistic commit size. */
export function aQueueWithEntries(n: number, overrides: Partial<QueueDoc> = {}): QueueDoc {
  const queue = aQueue(overrides);
  const entries = Array.from({ length: n }, (_, i) =>
    anEntry(queue.id, {
      seq: i + 1,
      prNumber: i + 1,
      history: [
        { state: 'NOT_READY', at: T0, reason: reason('submitted', 'submitted to the queue') },
        { state: 'PENDING', at: at(1), reason: reason('ready', 'ready') },
        { state: 'TESTING', at: at(2), reason: reason('test_started', 'test run started') },
      ],
    }),
  );
  return {
    ...queue,
    nextSeq: n + 1,
    entries,
    units: entries.map((e) => ({ id: randomUUID(), entryIds: [e.id], createdAt: T0 })),
  };
}

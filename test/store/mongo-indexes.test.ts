import { openMongoOnDb } from '../../src/store/mongo/open-mongo.js';
import { headOf } from '../../src/store/queue-rows.js';
import type { OutboundDelivery, WebhookSubscription } from '../../src/store/outbox-store.js';
import { RecordingDb, type RecordedQuery } from './mongo-recording-db.js';
import { aQueue, aTestCase, aToken, anEndedEntry, anEntry, anOrg, aRun, at } from './fixtures.js';

/**
 * Every filter and sort the MongoDB adapter sends, recorded by running each store operation against
 * a database that answers from queued documents (no server here), checked against the indexes the
 * adapter creates. A query is served when an index starts with a field it filters by equality (or,
 * filtering none by equality, with a field it filters by range, `$in` included); a query that sorts
 * needs its sort keys right after the index's leading equality fields, all in the index's directions
 * or all reversed, so the server reads in order and stops at the limit instead of sorting in memory
 * (or it is sent with `allowDiskUse`: a history read whose sort may spill to disk); each branch of an `$or` is checked on its own.
 */

/** Whole-collection reads on purpose, and why they stay small. */
const WHOLE_COLLECTION = new Set([
  // pruneHistory, hourly: each queue's page list, to sweep the pages a stopped commit left.
  'queues',
  // pruneOutbox, hourly: the ids of the subscriptions (a few per organization).
  'webhook_subscriptions',
]);

const isOperator = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));

/** The filter's conjunctions: `$or` branches each joined with the other fields. */
function branches(filter: Record<string, unknown>): Record<string, unknown>[] {
  const { $or, ...rest } = filter;
  if (!Array.isArray($or)) return [rest];
  return ($or as Record<string, unknown>[]).map((b) => ({ ...rest, ...b }));
}

function servedBy(index: Record<string, 1 | -1>, filter: Record<string, unknown>, sort: Record<string, 1 | -1>, allowDiskUse: boolean): boolean {
  const keys = Object.keys(index);
  const fields = Object.entries(filter);
  const equal = fields.filter(([, v]) => !isOperator(v) || Object.keys(v as object).every((k) => k === '$eq')).map(([k]) => k);
  const ranged = fields.map(([k]) => k).filter((k) => !equal.includes(k));
  const filtered = equal.length > 0 ? equal.includes(keys[0]!) : ranged.length > 0 ? ranged.includes(keys[0]!) : true;
  return filtered && (allowDiskUse || sortServed(index, equal, sort));
}

/** The sort keys (bar those filtered by equality) follow the index's leading equality fields, in its directions or all reversed. */
function sortServed(index: Record<string, 1 | -1>, equal: string[], sort: Record<string, 1 | -1>): boolean {
  const keys = Object.keys(index);
  const needed = Object.keys(sort).filter((k) => !equal.includes(k));
  if (needed.length === 0) return true;
  let i = 0;
  while (i < keys.length && equal.includes(keys[i]!)) i++;
  const directions = needed.map((k, j) => (keys[i + j] === k ? sort[k]! * index[k]! : 0));
  return directions.every((d) => d === 1) || directions.every((d) => d === -1);
}

function unserved(recording: RecordingDb): string[] {
  const problems: string[] = [];
  for (const q of recording.queries) {
    const indexes = recording.indexes.get(q.collection) ?? [{ _id: 1 as const }];
    const filter = q.filter ?? {};
    if (Object.keys(filter).length === 0 && Object.keys(q.sort ?? {}).length === 0) {
      if (!WHOLE_COLLECTION.has(q.collection)) problems.push(`${show(q)}: reads the whole collection`);
      continue;
    }
    for (const branch of branches(filter)) {
      if (!indexes.some((index) => servedBy(index, branch, q.sort ?? {}, q.allowDiskUse === true))) problems.push(show({ ...q, filter: branch }));
    }
  }
  return [...new Set(problems)];
}

function show(q: RecordedQuery): string {
  return `${q.collection}.${q.op} ${JSON.stringify(q.filter)} sort ${JSON.stringify(q.sort ?? {})}`;
}

const subscription: WebhookSubscription = {
  id: 'wh_1', orgId: 'org-1', url: 'https://example.com/hook', format: 'standard', events: ['*'], repo: null, repoKey: null, branch: null,
  description: null, secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: at(0), updatedAt: at(0),
};
const delivery: OutboundDelivery = {
  id: 'dlv_1', subscriptionId: 'wh_1', orgId: 'org-1', eventId: 'e1', eventType: 'pull_request.submitted', orderKey: 'q#1', seq: 2, status: 'pending',
  attempts: 0, retryIndex: 0, nextAttemptAt: at(0), lastAttemptAt: null, responseStatus: null, lastError: null, createdAt: at(0),
};

describe('MongoDB adapter queries', () => {
  it('has an index for every filter and sort it sends', async () => {
    const recording = new RecordingDb();
    const store = await openMongoOnDb(recording.db, async () => {});
    const org = anOrg({ id: 'org-1' });
    const token = aToken(org.id);
    const queue = aQueue({ orgId: org.id, version: 1, entries: [anEntry('q', { prNumber: 1 })] });
    const stored = { id: queue.id, repoKey: queue.repoKey, branch: queue.branch, orgId: queue.orgId, version: 1, head: headOf(queue), pages: ['p1'] };
    const page = { _id: 'p1', rows: queue.entries.map((d, o) => ({ k: 'e', o, d })) };
    const events = [{ id: 'e1', type: 'pull_request.submitted' as const, at: at(1), orgId: org.id, repoKey: queue.repoKey, branch: 'main', orderKey: 'q#1', data: { kind: 'queue' } }];
    recording.one.set('webhook_subscriptions', { ...subscription });
    recording.one.set('queues', stored);
    recording.one.set('outbound_deliveries', { ...delivery });

    await store.ping();
    await store.orgs.createOrg(org);
    await store.orgs.getOrgById(org.id);
    await store.orgs.getOrgBySlug(org.slug);
    await store.orgs.findOrgByOwner('github.com/acme');
    await store.orgs.addOrgOwner(org.id, 'github.com/acme-labs');
    await store.orgs.createToken(token);
    await store.orgs.findTokenByHash(token.hash);
    await store.orgs.getToken(token.id);
    await store.orgs.listTokens(org.id);
    await store.orgs.revokeToken(token.id, at(1));
    await store.orgs.touchToken(token.id, at(1));

    await store.queues.insertQueue(queue, events as never);
    recording.queue('queue_pages', [page]);
    await store.queues.getQueue(queue.repoKey, queue.branch);
    recording.queue('queue_pages', [page]);
    await store.queues.getQueueById(queue.id);
    recording.queue('queues', [{ id: queue.id, version: 1 }]);
    recording.queue('queue_pages', [page]);
    await store.queues.listQueues({ orgId: org.id });
    await store.queues.listQueues({ orgId: org.id, repoKey: queue.repoKey });
    recording.queue('queue_pages', [page]);
    const next = { ...queue, version: 2, entries: [anEntry(queue.id, { prNumber: 2 })] };
    await store.queues.commitQueue(next, 1, { entries: [anEndedEntry(queue.id)], runs: [aRun(queue.id, [1])], events: events as never });
    recording.one.set('queues', { ...stored, head: undefined, pages: undefined, entries: [] });
    await store.queues.commitQueue({ ...next, version: 3 }, 2);
    await store.queues.deleteQueue(queue.id, 3, events as never);
    await store.queues.latestArchivedEntry(queue.id, 1);
    await store.queues.archivedEntriesEndedSince([queue.id], at(0));
    await store.queues.archivedRuns(queue.id, { runId: 'r', prNumber: 1, finishedSince: at(0) });
    recording.queue('queues', [stored]);
    await store.queues.pruneHistory(at(0));

    recording.queue('impacted_targets', [{ prNumber: 2, sha: 'sha-2', bytes: 10, generation: 'g' }]);
    recording.one.set('impacted_targets', { all: false, generation: 'g', chunks: 1 });
    recording.queue('impacted_target_chunks', [{ names: ['//a'] }]);
    await store.targets.putImpactedTargets(queue.repoKey, 1, 'sha', { all: false, targets: ['//a'] }, { maxBytesPerRepo: 1 });
    await store.targets.getImpactedTargets(queue.repoKey, 1, 'sha');
    await store.targets.touchImpactedTargets(queue.repoKey, [{ prNumber: 1, sha: 'sha' }], at(1));
    await store.targets.pruneImpactedTargets(at(0));

    recording.one.set('secrets', { name: 'key', value: 'v' });
    await store.server.getOrCreateSecret('key', () => 'v');
    await store.server.claimWebhookDelivery('d1', at(1), at(0));
    await store.server.releaseWebhookDelivery('d1');
    await store.leases.takeLease('queue:q', 'me', 1, 2);
    await store.leases.releaseLease('queue:q', 'me');

    const tc = aTestCase(queue.repoKey);
    const result = { repoKey: queue.repoKey, testCaseId: tc.testCaseId, uploadId: 'u1', commitSha: 'c1', branch: 'main', outcome: 'passed' as const, failedAttempts: 0, passedAttempts: 1, at: at(1), ignoredForDetection: false };
    const change = { kind: 'quarantine' as const, repoKey: queue.repoKey, testCaseId: tc.testCaseId, at: at(1), quarantined: true };
    await store.tests.getTestUpload(queue.repoKey, 'u1');
    recording.one.delete('webhook_subscriptions');
    await store.tests.commitTestUpload({ upload: { repoKey: queue.repoKey, uploadId: 'u1' } as never, results: [result], testCases: [tc], events: [change], keepResultsSince: at(0) });
    await store.tests.getTestCases(queue.repoKey, [tc.testCaseId]);
    await store.tests.existingTestCaseIds(queue.repoKey, [tc.testCaseId]);
    await store.tests.testCasesToWatch(queue.repoKey, at(0));
    await store.tests.testResults(queue.repoKey, [tc.testCaseId], at(0));
    await store.tests.detectionResults(queue.repoKey, [tc.testCaseId], at(0), { commitSha: 'c1', targetBranches: ['main'], flakyCommits: 3, until: at(2) });
    await store.tests.testCaseEvents(queue.repoKey, tc.testCaseId);
    await store.tests.getFlakySettings(queue.repoKey);
    await store.tests.putFlakySettings(queue.repoKey, {} as never);
    await store.tests.updateFlakySettings(queue.repoKey, null, {} as never);
    await store.tests.updateFlakySettings(queue.repoKey, { brokenRuns: 5 } as never, {} as never);
    await store.tests.updateTestCase(tc, tc, []);
    await store.tests.testCaseCounts(['github.com/acme']);
    await store.tests.upsertTestCase(tc);
    await store.tests.getTestCase(queue.repoKey, tc.testCaseId);
    await store.tests.listQuarantinedTests(queue.repoKey, { offset: 0, limit: 10 });
    await store.tests.listFlakyTests(queue.repoKey, { offset: 0, limit: 10 });

    recording.one.set('webhook_subscriptions', { ...subscription });
    await store.outbox.insertSubscription(subscription);
    await store.outbox.getSubscription(subscription.id);
    await store.outbox.listSubscriptions(org.id);
    await store.outbox.listSubscriptions(null);
    await store.outbox.putSubscription(subscription);
    await store.outbox.updateSubscription(subscription.id, { enabled: true, failingSince: null }, { failingSince: at(1) });
    // A commit left staged by a stopped process, found in its queue's commits: confirmed from its staged copy.
    recording.queue('staged_events', [{ commitId: 'c1', queueId: queue.id }]);
    recording.queue('staged_events', [{ event: events[0] }]);
    recording.queue('outbox_events', []);
    recording.queue('outbox_events', [{ ...events[0], seq: 1, dispatched: false, requiresQueueGone: queue.id, writtenAt: at(0) }]);
    await store.outbox.undispatchedEvents(10);
    await store.outbox.dispatchEvents([{ eventSeq: 1, deliveries: [delivery] }]);
    await store.outbox.getEvent('e1');
    recording.queue('webhook_subscriptions', [{ id: subscription.id }]);
    recording.queue('outbound_deliveries', [{ ...delivery }]);
    await store.outbox.dueDeliveries(at(1), 10);
    await store.outbox.claimDelivery(delivery.id, delivery.nextAttemptAt, at(2));
    await store.outbox.putDelivery(delivery);
    await store.outbox.updateDelivery(delivery.id, { status: 'pending', attempts: 0 }, { attempts: 1 });
    await store.outbox.getDelivery(delivery.id);
    await store.outbox.listDeliveries(org.id, { subscriptionId: subscription.id, status: 'pending', eventId: 'e1' }, { offset: 0, limit: 10 });
    recording.queue('outbox_events', [{ id: 'e1', seq: 1 }]);
    await store.outbox.pruneOutbox(at(0));
    await store.outbox.deleteSubscription(subscription.id);

    const inbound = { id: 'gh-1', name: 'push', payload: '{}', receivedAt: at(0), status: 'pending' as const, attempts: 0, nextAttemptAt: at(0), lastError: null };
    await store.inbox.acceptInbound(inbound);
    await store.inbox.dueInbound(at(1), 10);
    await store.inbox.claimInbound(inbound.id, inbound.nextAttemptAt, at(2));
    await store.inbox.putInbound({ ...inbound, status: 'done' });
    await store.inbox.pruneInbound(at(0));

    const template = { orgId: org.id, repo: queue.repo, repoKey: queue.repoKey, pattern: 'release/*', settings: {}, settingsSource: 'api', createdAt: at(0), updatedAt: at(0) };
    await store.templates.insertTemplate(template);
    await store.templates.putTemplate(template);
    await store.templates.updateTemplate(template.repoKey, template.pattern, { settingsSource: 'api' }, { settings: { batch: true } });
    await store.templates.getTemplate(template.repoKey, template.pattern);
    await store.templates.listTemplates({ orgId: org.id });
    await store.templates.listTemplates({ repoKey: queue.repoKey });
    await store.templates.deleteTemplate(template.repoKey, template.pattern);
    await store.close();

    const collections = new Set(recording.queries.map((q) => q.collection));
    expect([...collections].sort()).toEqual([
      'archived_entries', 'archived_runs', 'counters', 'flaky_settings', 'github_inbox', 'impacted_target_chunks', 'impacted_targets', 'layout', 'leases', 'orgs',
      'outbound_deliveries', 'outbox_events', 'queue_pages', 'queue_templates', 'queues', 'secrets', 'staged_events', 'test_case_events', 'test_cases', 'test_results', 'test_uploads',
      'tokens', 'webhook_deliveries', 'webhook_subscriptions',
    ]);
    // Every collection the adapter indexes is queried here: none is left out of the check.
    expect([...recording.indexes.keys()].filter((c) => !collections.has(c))).toEqual([]);
    expect(recording.queries.length).toBeGreaterThan(100);
    expect(unserved(recording)).toEqual([]);
  });
});

import { queueEvents } from '../../src/events/queue-events.js';
import { transition } from '../../src/domain/transition.js';
import { reason } from '../../src/domain/reasons.js';
import type { OutboundDelivery, WebhookSubscription } from '../../src/store/outbox-store.js';
import type { Store } from '../../src/store/store.js';
import { aQueue, anEntry, at } from './fixtures.js';

/**
 * Outbound webhooks: the outbox is written with the queue commit or not at all, and only for an
 * organization with an enabled webhook; deliveries keep order per PR.
 */
export function outboxContract(store: () => Store): void {
  describe('outbound webhook outbox', () => {
    const subscription = (overrides: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
      id: `wh_${Math.random().toString(36).slice(2)}`,
      orgId: 'org-1',
      url: 'https://example.com/hook',
      format: 'standard',
      events: ['*'],
      repo: null,
      repoKey: null,
      branch: null,
      description: null,
      secret: 'whsec_c2VjcmV0',
      enabled: true,
      disabledReason: null,
      failingSince: null,
      createdAt: at(0),
      updatedAt: at(0),
      ...overrides,
    });
    const delivery = (subscriptionId: string, eventId: string, seq: number, orderKey: string): OutboundDelivery => ({
      id: `dlv_${subscriptionId}_${eventId}`,
      subscriptionId,
      orgId: 'org-1',
      eventId,
      eventType: 'pull_request.submitted',
      orderKey,
      seq,
      status: 'pending',
      attempts: 0,
      retryIndex: 0,
      nextAttemptAt: at(0),
      lastAttemptAt: null,
      responseStatus: null,
      lastError: null,
      createdAt: at(0),
    });

    it('stores the events of a commit with it, and none of a commit that lost its compare-and-set', async () => {
      await store().outbox.insertSubscription(subscription());
      const queue = aQueue({ orgId: 'org-1', version: 0 });
      await store().queues.insertQueue(queue, queueEvents(null, queue, at(0)));
      const entry = anEntry(queue.id, { prNumber: 7 });
      const next = { ...queue, version: 1, entries: [entry] };
      expect(await store().queues.commitQueue(next, 0, { events: queueEvents(queue, next, at(1)) })).toBe(true);

      const stale = { ...queue, version: 1, state: 'paused' as const };
      expect(await store().queues.commitQueue(stale, 0, { events: queueEvents(queue, stale, at(2)) })).toBe(false);

      const events = await store().outbox.undispatchedEvents(100);
      expect(events.map((e) => e.type)).toEqual(['queue.created', 'pull_request.submitted']);
      expect(events[0]!.seq).toBeLessThan(events[1]!.seq);
      expect(await store().queues.getQueueById(queue.id)).toEqual(next);
    });

    it('ignores an event id written twice (a repeated commit invents nothing)', async () => {
      await store().outbox.insertSubscription(subscription());
      const queue = aQueue({ orgId: 'org-1', version: 0 });
      await store().queues.insertQueue(queue);
      const entry = anEntry(queue.id, { prNumber: 3 });
      const v1 = { ...queue, version: 1, entries: [entry] };
      const events = queueEvents(queue, v1, at(1));
      await store().queues.commitQueue(v1, 0, { events });
      const v2 = { ...v1, version: 2, entries: [transition(entry, 'PENDING', reason('ready', 'ready'), new Date(at(2)))] };
      await store().queues.commitQueue(v2, 1, { events: [...events, ...queueEvents(v1, v2, at(2))] });
      expect((await store().outbox.undispatchedEvents(100)).map((e) => e.type)).toEqual(['pull_request.submitted', 'pull_request.ready']);
    });

    it('stores a deletion event only when the queue is deleted', async () => {
      await store().outbox.insertSubscription(subscription());
      const queue = aQueue({ orgId: 'org-1', version: 0 });
      await store().queues.insertQueue(queue);
      expect(await store().queues.deleteQueue(queue.id, 5, queueEvents(queue, null, at(1)))).toBe(false);
      expect(await store().outbox.undispatchedEvents(10)).toEqual([]);
      expect(await store().queues.deleteQueue(queue.id, 0, queueEvents(queue, null, at(1)))).toBe(true);
      expect((await store().outbox.undispatchedEvents(10)).map((e) => e.type)).toEqual(['queue.deleted']);
    });

    it('keeps no queue event of an organization without an enabled webhook, and keeps them from when it has one', async () => {
      const disabled = subscription({ enabled: false });
      await store().outbox.insertSubscription(disabled);
      await store().outbox.insertSubscription(subscription({ orgId: 'org-2' }));
      const queue = aQueue({ orgId: 'org-1', version: 0 });
      await store().queues.insertQueue(queue, queueEvents(null, queue, at(0)));
      const v1 = { ...queue, version: 1, entries: [anEntry(queue.id, { prNumber: 7 })] };
      expect(await store().queues.commitQueue(v1, 0, { events: queueEvents(queue, v1, at(1)) })).toBe(true);
      expect(await store().outbox.undispatchedEvents(10)).toEqual([]);

      await store().outbox.putSubscription({ ...disabled, enabled: true });
      const v2 = { ...v1, version: 2, entries: [...v1.entries, anEntry(queue.id, { prNumber: 8 })] };
      expect(await store().queues.commitQueue(v2, 1, { events: queueEvents(v1, v2, at(2)) })).toBe(true);
      const kept = await store().outbox.undispatchedEvents(10);
      expect(kept.map((e) => [e.type, e.data.kind === 'pull_request' ? e.data.entry.prNumber : null])).toEqual([['pull_request.submitted', 8]]);
      // The queue's own documents are written all the same.
      expect(await store().queues.getQueueById(queue.id)).toEqual(v2);
    });

    it('fans out once, and only the oldest pending delivery of a PR is due', async () => {
      const sub = subscription();
      await store().outbox.insertSubscription(sub);
      const first = delivery(sub.id, 'e1', 1, 'q#1');
      const second = delivery(sub.id, 'e2', 2, 'q#1');
      const other = delivery(sub.id, 'e3', 3, 'q#2');
      await store().outbox.dispatchEvents([{ eventSeq: 1, deliveries: [first, second, other] }]);
      await store().outbox.dispatchEvents([{ eventSeq: 1, deliveries: [first] }]);
      expect((await store().outbox.dueDeliveries(at(1), 10)).map((d) => d.eventId)).toEqual(['e1', 'e3']);

      expect(await store().outbox.claimDelivery(first.id, first.nextAttemptAt, at(5))).toBe(true);
      expect(await store().outbox.claimDelivery(first.id, first.nextAttemptAt, at(5))).toBe(false);
      // Claimed and not yet answered: the PR's later event still waits.
      expect((await store().outbox.dueDeliveries(at(1), 10)).map((d) => d.eventId)).toEqual(['e3']);

      await store().outbox.putDelivery({ ...first, status: 'succeeded', attempts: 1, nextAttemptAt: at(1) });
      expect((await store().outbox.dueDeliveries(at(1), 10)).map((d) => d.eventId)).toEqual(['e2', 'e3']);
      const log = await store().outbox.listDeliveries('org-1', { subscriptionId: sub.id }, { offset: 0, limit: 2 });
      expect(log.total).toBe(3);
      expect(log.rows.map((d) => d.eventId)).toEqual(['e3', 'e2']);
      expect((await store().outbox.listDeliveries('org-2', {}, { offset: 0, limit: 10 })).total).toBe(0);
    });

    it('a receiver failing for days blocks no other subscription\'s deliveries', async () => {
      // One receiver is down: its first delivery waits for a retry hours away and the PR's later
      // ones queue behind it; another was disabled after failing for days with its backlog pending.
      const failing = subscription();
      const disabled = subscription({ enabled: false, disabledReason: 'failing for 3 days' });
      const healthy = subscription({ orgId: 'org-2' });
      for (const s of [failing, disabled, healthy]) await store().outbox.insertSubscription(s);
      const backlog = 300;
      const waiting = Array.from({ length: backlog }, (_, i) => ({ ...delivery(failing.id, `f${i}`, i + 1, 'q#1'), nextAttemptAt: i === 0 ? at(600) : at(0) }));
      const stranded = Array.from({ length: backlog }, (_, i) => delivery(disabled.id, `d${i}`, backlog + i + 1, `q#${i}`));
      const fresh = { ...delivery(healthy.id, 'h1', 2 * backlog + 1, 'q#9'), orgId: 'org-2' };
      await store().outbox.dispatchEvents([{ eventSeq: 1, deliveries: [...waiting, ...stranded, fresh] }]);

      expect((await store().outbox.dueDeliveries(at(1), 10)).map((d) => d.eventId)).toEqual(['h1']);
    });

    it('fans out several events at once: each is dispatched with its own deliveries', async () => {
      const sub = subscription();
      await store().outbox.insertSubscription(sub);
      const queue = aQueue({ orgId: 'org-1', version: 0 });
      await store().queues.insertQueue(queue, queueEvents(null, queue, at(1)));
      const v1 = { ...queue, version: 1, entries: [anEntry(queue.id, { prNumber: 3 })] };
      await store().queues.commitQueue(v1, 0, { events: queueEvents(queue, v1, at(2)) });
      const [created, submitted] = await store().outbox.undispatchedEvents(10);
      await store().outbox.dispatchEvents([
        { eventSeq: created!.seq, deliveries: [] },
        { eventSeq: submitted!.seq, deliveries: [delivery(sub.id, submitted!.id, 1, 'q#3')] },
      ]);
      expect(await store().outbox.undispatchedEvents(10)).toEqual([]);
      expect((await store().outbox.dueDeliveries(at(2), 10)).map((d) => d.eventId)).toEqual([submitted!.id]);
    });

    it('sends nothing to a disabled subscription, and deleting one deletes its deliveries', async () => {
      const sub = subscription({ enabled: false });
      await store().outbox.insertSubscription(sub);
      await store().outbox.dispatchEvents([{ eventSeq: 1, deliveries: [delivery(sub.id, 'e1', 1, 'q#1')] }]);
      expect(await store().outbox.dueDeliveries(at(1), 10)).toEqual([]);
      expect(await store().outbox.deleteSubscription(sub.id)).toBe(true);
      expect(await store().outbox.deleteSubscription(sub.id)).toBe(false);
      expect((await store().outbox.listDeliveries('org-1', {}, { offset: 0, limit: 10 })).total).toBe(0);
    });

    it("keeps a chat channel's repository rules (repository keys have dots) and a delivery's sent parts as written, under compare-and-set", async () => {
      const rules = [{ repoKey: 'github.com/acme/widgets', source: '.github/mergeq.yml@abc', verdicts: ['culprit' as const], branches: ['release/*'] }];
      const sub = subscription({ format: 'slack_blocks', chat: { verdicts: ['culprit'], mentions: {} }, slackBotToken: 'xoxb-1-2-t', name: 'culprits' });
      await store().outbox.insertSubscription(sub);
      expect(await store().outbox.updateSubscription(sub.id, { fileRules: undefined }, { fileRules: rules })).toBe(true);
      expect(await store().outbox.updateSubscription(sub.id, { fileRules: undefined }, { fileRules: [] })).toBe(false);
      const stored = await store().outbox.getSubscription(sub.id);
      expect(stored).toMatchObject({ fileRules: rules, slackBotToken: 'xoxb-1-2-t', name: 'culprits' });
      // The condition is what was read, as the file's rules are changed.
      expect(await store().outbox.updateSubscription(sub.id, { fileRules: stored!.fileRules }, { fileRules: [] })).toBe(true);
      expect((await store().outbox.getSubscription(sub.id))?.fileRules).toEqual([]);

      const d = delivery(sub.id, 'e1', 1, 'q#1');
      await store().outbox.dispatchEvents([{ eventSeq: 1, deliveries: [d] }]);
      expect(await store().outbox.updateDelivery(d.id, { attempts: 0 }, { attempts: 1, sentParts: ['channel'] })).toBe(true);
      expect(await store().outbox.getDelivery(d.id)).toMatchObject({ attempts: 1, sentParts: ['channel'] });
    });

    it('writes test-case events with the test case changes', async () => {
      const testCase = {
        testCaseId: 'tc-1',
        repoKey: 'github.com/acme/widgets',
        name: 'adds',
        parent: null,
        file: null,
        classname: null,
        variant: null,
        codeowners: [],
        status: 'flaky' as const,
        statusLastUpdatedAt: at(1),
        quarantineSetting: 'auto' as const,
        quarantinedAt: at(1),
      };
      await store().tests.writeTestCases(
        [testCase],
        [
          { kind: 'status', repoKey: testCase.repoKey, testCaseId: 'tc-1', at: at(1), from: 'healthy', to: 'flaky', evidence: { commits: ['abc'], uploads: ['u1'] } },
          { kind: 'quarantine', repoKey: testCase.repoKey, testCaseId: 'tc-1', at: at(1), quarantined: true },
        ],
      );
      const events = await store().outbox.undispatchedEvents(10);
      expect(events.map((e) => e.type)).toEqual(['test_case.status_changed', 'test_case.quarantine_changed']);
      expect(events[0]!.data).toMatchObject({ kind: 'test_case', testCase: { testCaseId: 'tc-1', status: 'flaky' } });

      // An upload's events too, with the upload; a repeated upload id writes none.
      const upload = {
        repoKey: testCase.repoKey,
        uploadId: 'u1',
        commitSha: 'c1',
        branch: 'main',
        prNumber: null,
        jobName: null,
        variant: null,
        at: at(2),
        answer: { uploadId: 'u1', commitSha: 'c1', tests: 1, failed: 0, skipped: 0, quarantinedFailures: 0, newlyFlaky: [], ignoredForDetection: false, quarantinedFailedTests: [], truncatedNames: 0 },
      };
      const healed = { kind: 'status' as const, repoKey: testCase.repoKey, testCaseId: 'tc-1', at: at(2), from: 'flaky' as const, to: 'healthy' as const, evidence: { commits: [], uploads: ['u1'] } };
      const write = { upload, results: [], testCases: [{ ...testCase, status: 'healthy' as const }], events: [healed], keepResultsSince: at(0) };
      expect(await store().tests.commitTestUpload(write)).toBe(true);
      expect(await store().tests.commitTestUpload({ ...write, events: [{ ...healed, at: at(3) }] })).toBe(false);
      const after = await store().outbox.undispatchedEvents(10);
      expect(after.map((e) => e.type)).toEqual(['test_case.status_changed', 'test_case.quarantine_changed', 'test_case.status_changed']);
      expect(after[2]!.data).toMatchObject({ testCase: { status: 'healthy' }, change: { from: 'flaky', to: 'healthy' } });
    });
  });
}

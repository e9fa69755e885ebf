import type { Org } from '../../src/domain/org.js';
import type { QueueTemplate } from '../../src/domain/queue-template.js';
import { FlakyTestService } from '../../src/service/flaky/flaky-test-service.js';
import { QueueTemplateService } from '../../src/service/queue/queue-template-service.js';
import { putFileTemplate } from '../../src/service/repo-settings/file-templates.js';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import type { WebhookSubscription } from '../../src/store/outbox-store.js';
import type { Store } from '../../src/store/store.js';
import { recordAttempt } from '../../src/webhooks/record-attempt.js';
import type { OutboxEvent } from '../../src/events/event-types.js';
import type { TestUpload } from '../../src/domain/flaky.js';
import { aQueue, aRun, aTestCase, anEndedEntry, anEntry, anOrg, at } from './fixtures.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];
const clock = { now: () => new Date(at(10)) };

/**
 * Two replicas (two stores on the same data when the adapter can open one, else one store) changing
 * one shared record at once: neither change is lost. Each race is made deterministic by running the
 * other writer's change between a read and the write that follows it.
 */
export function replicaRaceContract(current: () => Store, openPeer?: () => Promise<Store>): void {
  describe('two replicas changing one record', () => {
    const peers: Store[] = [];
    afterEach(async () => {
      for (const p of peers.splice(0)) await p.close();
    });
    async function replicas(): Promise<[Store, Store]> {
      const a = current();
      if (!openPeer) return [a, a];
      const b = await openPeer();
      peers.push(b);
      return [a, b];
    }
    const org: Org = anOrg({ owners: ['github.com/acme'] });
    const repo = { host: 'github.com', owner: 'acme', name: 'app' };

    it('changes a webhook, a template or flaky settings only while the fields it read still hold, from either store', async () => {
      const [a, b] = await replicas();
      const sub = aSubscription(org.id);
      await a.outbox.insertSubscription(sub);
      expect(await b.outbox.updateSubscription(sub.id, { failingSince: null, enabled: true }, { failingSince: at(1) })).toBe(true);
      expect(await a.outbox.updateSubscription(sub.id, { failingSince: null }, { failingSince: at(2) })).toBe(false);
      expect(await a.outbox.updateSubscription('wh_missing', {}, { url: 'http://127.0.0.1:9/x' })).toBe(false);
      expect(await a.outbox.getSubscription(sub.id)).toEqual({ ...sub, failingSince: at(1) });

      const template: QueueTemplate = { orgId: org.id, repo, repoKey: 'github.com/acme/app', pattern: 'v*', settings: { concurrency: 2 }, settingsSource: 'api', createdAt: at(0), updatedAt: at(0) };
      await a.templates.insertTemplate(template);
      const read = (await b.templates.getTemplate(template.repoKey, 'v*'))!;
      expect(await b.templates.updateTemplate(template.repoKey, 'v*', { settings: read.settings }, { settings: { concurrency: 3 } })).toBe(true);
      expect(await a.templates.updateTemplate(template.repoKey, 'v*', { settings: read.settings }, { settings: { concurrency: 4 } })).toBe(false);
      expect(await a.templates.getTemplate(template.repoKey, 'v*')).toEqual({ ...template, settings: { concurrency: 3 } });

      const key = 'github.com/acme/app';
      const settings = { flakyWindowDays: 14, flakyMinEvents: 1, brokenRuns: 5, flakyRecoveryDays: 7, autoQuarantine: true, targetBranches: ['main'] };
      expect(await a.tests.updateFlakySettings(key, null, settings)).toBe(true);
      expect(await b.tests.updateFlakySettings(key, null, { ...settings, brokenRuns: 1 })).toBe(false);
      const stored = (await b.tests.getFlakySettings(key))!;
      expect(await b.tests.updateFlakySettings(key, stored, { ...stored, brokenRuns: 2 })).toBe(true);
      expect(await a.tests.updateFlakySettings(key, stored, { ...stored, brokenRuns: 3 })).toBe(false);
      expect(await a.tests.getFlakySettings(key)).toEqual({ ...settings, brokenRuns: 2 });
    });

    it("numbers one PR's events in commit order when two writers commit its queue in turns", async () => {
      const [a, b] = await replicas();
      await a.outbox.insertSubscription(aSubscription('org-1'));
      const queue = aQueue({ orgId: 'org-1', version: 1 });
      await a.queues.insertQueue(queue);
      const made: string[] = [];
      for (let i = 0; i < 6; i++) {
        const writer = i % 2 === 0 ? a : b;
        const current = (await writer.queues.getQueueById(queue.id))!;
        const event = { id: `ev-${i}`, type: 'pull_request.submitted', at: at(i), orgId: 'org-1', repoKey: queue.repoKey, branch: 'main', orderKey: `${queue.id}#1`, data: { kind: 'queue' } } as unknown as OutboxEvent;
        expect(await writer.queues.commitQueue({ ...current, version: current.version + 1 }, current.version, { events: [event] })).toBe(true);
        made.push(event.id);
      }
      const events = await b.outbox.undispatchedEvents(100);
      expect(events.map((e) => e.id)).toEqual(made);
      expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((x, y) => x - y));
    });

    it('keeps nothing of the archive of a commit that lost its version check to the other store', async () => {
      const [a, b] = await replicas();
      const queue = aQueue({ version: 1, entries: [anEntry('q', { prNumber: 1 }), anEntry('q', { prNumber: 2 })] });
      await a.queues.insertQueue(queue);
      const won = { ...queue, version: 2, entries: [queue.entries[1]!] };
      const ended = (n: number) => anEndedEntry(queue.id, { id: queue.entries[n]!.id, prNumber: n + 1 });
      expect(await b.queues.commitQueue(won, 1, { entries: [ended(0)] })).toBe(true);
      expect(await a.queues.commitQueue({ ...queue, version: 2, entries: [queue.entries[0]!] }, 1, { entries: [ended(1)], runs: [aRun(queue.id, [2])] })).toBe(false);

      for (const store of [a, b]) {
        expect(await store.queues.latestArchivedEntry(queue.id, 2)).toBeNull();
        expect(await store.queues.archivedRuns(queue.id, {})).toEqual([]);
        expect(await store.queues.latestArchivedEntry(queue.id, 1)).toEqual(ended(0));
      }
    });

    it('of one upload sent to both stores at once, one writes everything and the other nothing', async () => {
      const [a, b] = await replicas();
      const repoKey = 'github.com/acme/app';
      const tc = aTestCase(repoKey, { status: 'healthy' });
      const upload = (failed: boolean) => ({
        upload: { repoKey, uploadId: 'u1', commitSha: 'c1', branch: 'main', at: at(1), prNumber: null, jobName: null, variant: null, answer: { failed: failed ? 1 : 0 } } as unknown as TestUpload,
        results: [{ repoKey, testCaseId: tc.testCaseId, uploadId: 'u1', commitSha: 'c1', branch: 'main', outcome: failed ? ('failed' as const) : ('passed' as const), failedAttempts: failed ? 1 : 0, passedAttempts: failed ? 0 : 1, at: at(1), ignoredForDetection: false }],
        testCases: [{ ...tc, status: failed ? ('broken' as const) : ('healthy' as const) }],
        events: [],
        keepResultsSince: at(-100),
      });
      const writes = [upload(false), upload(true)];

      const committed = await Promise.all([a.tests.commitTestUpload(writes[0]!), b.tests.commitTestUpload(writes[1]!)]);

      expect(committed.filter(Boolean)).toHaveLength(1);
      const winner = writes[committed.indexOf(true)]!;
      for (const store of [a, b]) {
        expect(await store.tests.getTestUpload(repoKey, 'u1')).toEqual(winner.upload);
        expect(await store.tests.testResults(repoKey, [tc.testCaseId], at(-100))).toEqual(winner.results);
        expect(await store.tests.getTestCase(repoKey, tc.testCaseId)).toEqual(winner.testCases[0]);
      }
    });

    it('a failed delivery attempt records its streak without undoing the URL a person fixed meanwhile', async () => {
      const [a, b] = await replicas();
      const sub = aSubscription(org.id, { url: 'http://127.0.0.1:9/broken' });
      await a.outbox.insertSubscription(sub);
      const people = new WebhookService({ store: b, clock, allowedNetworks: LOOPBACK });
      const outbox = racing(a.outbox, 'getSubscription', () => people.update(org, { id: sub.id, url: 'http://127.0.0.1:9/fixed', description: 'fixed' }));

      await recordAttempt(outbox, aDelivery(sub.id), sub, { ok: false, status: 500, error: 'HTTP 500' }, { at: new Date(at(5)), schedule: [60_000], disableAfterMs: 3_600_000 });

      expect(await b.outbox.getSubscription(sub.id)).toMatchObject({ url: 'http://127.0.0.1:9/fixed', description: 'fixed', failingSince: at(5), enabled: true });
    });

    it("a person's redelivery made while an attempt was in flight stands, and the attempt is counted", async () => {
      const [a, b] = await replicas();
      const sub = aSubscription(org.id);
      await a.outbox.insertSubscription(sub);
      const delivery = { ...aDelivery(sub.id), orgId: org.id, retryIndex: 2, attempts: 2 };
      await a.outbox.dispatchEvents([{ eventSeq: 1, deliveries: [delivery] }]);
      const until = at(6);
      expect(await a.outbox.claimDelivery(delivery.id, delivery.nextAttemptAt, until)).toBe(true);
      // While the attempt is in flight, a person redelivers it (from the start of the schedule, now).
      await new WebhookService({ store: b, clock, allowedNetworks: LOOPBACK }).redeliver(org, delivery.id);

      await recordAttempt(a.outbox, { ...delivery, nextAttemptAt: until }, sub, { ok: false, status: 500, error: 'HTTP 500' }, { at: new Date(at(7)), schedule: [60_000, 60_000, 60_000], disableAfterMs: 3_600_000 });

      expect(await b.outbox.getDelivery(delivery.id)).toMatchObject({ status: 'pending', retryIndex: 0, nextAttemptAt: at(10), attempts: 3, lastAttemptAt: at(7), lastError: 'HTTP 500' });
    });

    it('an attempt that would disable a webhook decides again when a person disabled it meanwhile', async () => {
      const [a, b] = await replicas();
      const sub = aSubscription(org.id, { failingSince: at(0) });
      await a.outbox.insertSubscription(sub);
      const people = new WebhookService({ store: b, clock, allowedNetworks: LOOPBACK });
      const outbox = racing(a.outbox, 'getSubscription', () => people.update(org, { id: sub.id, enabled: false }));

      await recordAttempt(outbox, aDelivery(sub.id), sub, { ok: false, status: 500, error: 'HTTP 500' }, { at: new Date(at(90)), schedule: [60_000], disableAfterMs: 3_600_000 });

      // Disabled by the person: no reason of mergeq's is shown, as if mergeq had disabled it.
      expect(await b.outbox.getSubscription(sub.id)).toMatchObject({ enabled: false, disabledReason: null, failingSince: at(0) });
    });

    it('two people changing different fields of one webhook on two replicas keep both', async () => {
      const [a, b] = await replicas();
      const sub = aSubscription(org.id);
      await a.outbox.insertSubscription(sub);
      const onA = new WebhookService({ store: a, clock, allowedNetworks: LOOPBACK });
      const outbox = racing(b.outbox, 'updateSubscription', () => onA.update(org, { id: sub.id, url: 'http://127.0.0.1:9/new' }), 'before');
      const onB = new WebhookService({ store: { outbox, server: b.server }, clock, allowedNetworks: LOOPBACK });

      await onB.update(org, { id: sub.id, description: 'the CI bot' });

      expect(await a.outbox.getSubscription(sub.id)).toMatchObject({ url: 'http://127.0.0.1:9/new', description: 'the CI bot' });
    });

    it('flaky settings changed on two replicas at once keep both changes', async () => {
      const [a, b] = await replicas();
      const onA = new FlakyTestService({ store: a, clock });
      const tests = racing(b.tests, 'getFlakySettings', () => onA.updateSettings(org, repo, { brokenRuns: 9 }));
      const onB = new FlakyTestService({ store: { tests }, clock });

      await onB.updateSettings(org, repo, { flakyWindowDays: 3 });

      expect(await a.tests.getFlakySettings('github.com/acme/app')).toMatchObject({ brokenRuns: 9, flakyWindowDays: 3 });
    });

    it('a quarantine setting made while another replica changed the test case keeps that change', async () => {
      const [a, b] = await replicas();
      const tc = aTestCase('github.com/acme/app');
      await a.tests.upsertTestCase(tc);
      const marked = { ...tc, status: 'broken' as const, statusLastUpdatedAt: at(3) };
      const tests = racing(b.tests, 'getTestCase', () => a.tests.writeTestCases([marked], []));

      await new FlakyTestService({ store: { tests }, clock }).setQuarantineSetting(org, 'octocat', { repo, testCaseId: tc.testCaseId }, 'never', 'noisy');

      expect(await a.tests.getTestCase(tc.repoKey, tc.testCaseId)).toMatchObject({ status: 'broken', statusLastUpdatedAt: at(3), quarantineSetting: 'never' });
    });

    it('a quarantine setting made while another replica evaluates an upload of that test is kept, and the upload decided again', async () => {
      const [a, b] = await replicas();
      const junit = '<testsuite name="math"><testcase classname="math" name="adds numbers" file="test/math.test.ts"><failure message="1 + 1 is not 3"/></testcase></testsuite>';
      await new FlakyTestService({ store: a, clock }).upload(org, { repo, commitSha: 'c1', branch: 'feature', uploadId: 'u1', junitXml: [junit] });
      const [tc] = await a.tests.testCasesToWatch('github.com/acme/app', at(-1000));
      const person = new FlakyTestService({ store: b, clock });
      const tests = racing(a.tests, 'testCasesToWatch', () => person.setQuarantineSetting(org, 'octocat', { repo, testCaseId: tc!.testCaseId }, 'always', 'blocks the queue'));

      await new FlakyTestService({ store: { tests }, clock }).upload(org, { repo, commitSha: 'c2', branch: 'feature', uploadId: 'u2', junitXml: [junit] });

      expect(await b.tests.getTestCase(tc!.repoKey, tc!.testCaseId)).toMatchObject({ quarantineSetting: 'always', lastFailedAt: at(10) });
      expect(await b.tests.getTestUpload(tc!.repoKey, 'u2')).not.toBeNull();
    });

    it('a template updated through the API on two replicas at once keeps both settings', async () => {
      const [a, b] = await replicas();
      const onA = new QueueTemplateService(a, clock);
      await onA.create(org, { repo, pattern: 'release/*', concurrency: 2 });
      const templates = racing(b.templates, 'getTemplate', () => onA.update(org, { repo, pattern: 'release/*', batch: true }));

      await new QueueTemplateService({ templates }, clock).update(org, { repo, pattern: 'release/*', concurrency: 5 });

      expect((await a.templates.getTemplate('github.com/acme/app', 'release/*'))?.settings).toEqual({ concurrency: 5, batch: true });
    });

    it('an API update that read a template before the settings file took it over is refused, not written over the file', async () => {
      const [a, b] = await replicas();
      await new QueueTemplateService(a, clock).create(org, { repo, pattern: 'release/*', concurrency: 2 });
      const fromFile: QueueTemplate = { orgId: org.id, repo, repoKey: 'github.com/acme/app', pattern: 'release/*', settings: { concurrency: 8 }, settingsSource: '.github/mergeq.yml@abc', createdAt: at(1), updatedAt: at(1) };
      const templates = racing(b.templates, 'getTemplate', () => putFileTemplate(a.templates, fromFile));

      await expect(new QueueTemplateService({ templates }, clock).update(org, { repo, pattern: 'release/*', concurrency: 5 })).rejects.toMatchObject({ code: 'template_managed_by_file' });

      expect(await a.templates.getTemplate('github.com/acme/app', 'release/*')).toMatchObject({ settings: { concurrency: 8 }, settingsSource: '.github/mergeq.yml@abc' });
    });

    it('an API delete that read a template before the settings file took it over is refused, and the template kept', async () => {
      const [a, b] = await replicas();
      await new QueueTemplateService(a, clock).create(org, { repo, pattern: 'release/*', concurrency: 2 });
      const fromFile: QueueTemplate = { orgId: org.id, repo, repoKey: 'github.com/acme/app', pattern: 'release/*', settings: { concurrency: 8 }, settingsSource: '.github/mergeq.yml@abc', createdAt: at(1), updatedAt: at(1) };
      const templates = racing(b.templates, 'getTemplate', () => putFileTemplate(a.templates, fromFile));

      await expect(new QueueTemplateService({ templates }, clock).delete(org, { repo, pattern: 'release/*' })).rejects.toMatchObject({ code: 'template_managed_by_file' });

      expect(await a.templates.getTemplate('github.com/acme/app', 'release/*')).toMatchObject({ settingsSource: '.github/mergeq.yml@abc' });
    });
  });
}

/**
 * `target` with `race` run once around the first call of `method`: after it answered and before the
 * caller sees the answer (a read), or before it runs (a write, then made over a changed record).
 */
function racing<T extends object>(target: T, method: keyof T, race: () => Promise<unknown>, when: 'after' | 'before' = 'after'): T {
  const raced = Object.create(target) as T;
  const call = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  let done = false;
  (raced as Record<keyof T, unknown>)[method] = async (...args: unknown[]) => {
    const first = !done;
    done = true;
    if (first && when === 'before') await race();
    const result = await call(...args);
    if (first && when === 'after') await race();
    return result;
  };
  return raced;
}

function aSubscription(orgId: string, overrides: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return {
    id: `wh_${Math.random().toString(36).slice(2)}`, orgId, url: 'http://127.0.0.1:9/hook', format: 'standard', events: ['*'], repo: null, repoKey: null, branch: null,
    description: null, secret: 'whsec_c2VjcmV0', enabled: true, disabledReason: null, failingSince: null, createdAt: at(0), updatedAt: at(0), ...overrides,
  };
}

function aDelivery(subscriptionId: string) {
  return {
    id: `dlv_${subscriptionId}`, subscriptionId, orgId: 'org-1', eventId: 'ev-1', eventType: 'pull_request.submitted', orderKey: 'pr-1', seq: 1, status: 'pending' as const,
    attempts: 0, retryIndex: 0, nextAttemptAt: at(5), lastAttemptAt: null, responseStatus: null, lastError: null, createdAt: at(0),
  };
}

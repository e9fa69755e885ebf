import { pino } from 'pino';
import { WebhookService } from '../../src/service/webhooks/webhook-service.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { LOOPBACK_NETWORKS, WebhookReceiver } from '../e2e/webhook-receiver.js';
import { ACME_REPO, post } from '../http/helpers/requests.js';
import { createTestApp, type TestApp } from '../http/helpers/test-app.js';

/**
 * The test-case events of an upload belong to the organization that uploaded: with no webhook of
 * its own none is stored (20,000 newly flaky tests would otherwise write 20,000 events nobody
 * receives), and with one they are delivered to it.
 */

let t: TestApp;
let receiver: WebhookReceiver;
beforeEach(async () => {
  t = await createTestApp();
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await t.close();
  await receiver.close();
});

/** Each test fails, then passes, on commit `sha`: all of them become flaky with this upload. */
const newlyFlaky = (sha: string, names: string[]) =>
  post(t, 'flaky-tests/upload', {
    repo: ACME_REPO,
    branch: 'feature',
    commitSha: sha,
    junitXml: `<testsuite name="cart">${names.map((n) => `<testcase classname="cart" name="${n}"><failure>boom</failure></testcase><testcase classname="cart" name="${n}"/>`).join('')}</testsuite>`,
  });

test('an organization without a webhook stores no test-case events; with one, they reach it', async () => {
  const quiet = await newlyFlaky('c1', ['adds', 'removes', 'totals']);
  expect(quiet.body.newlyFlaky).toHaveLength(3);
  expect(await t.store.outbox.undispatchedEvents(100)).toEqual([]);

  await new WebhookService({ store: t.store, clock: t.clock, allowedNetworks: LOOPBACK_NETWORKS }).create(t.acme.org, { url: receiver.url, events: ['test_case.*'] });
  const heard = await newlyFlaky('c2', ['discounts']);
  expect(heard.body.newlyFlaky).toHaveLength(1);
  const stored = await t.store.outbox.undispatchedEvents(100);
  expect(stored.map((e) => [e.type, e.orgId])).toEqual([
    ['test_case.status_changed', t.acme.org.id],
    ['test_case.quarantine_changed', t.acme.org.id],
  ]);

  const dispatcher = new WebhookDispatcher({ store: t.store, clock: t.clock, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS, timeoutMs: 1000 });
  // One test case's events go out in order, one per pass.
  await dispatcher.runOnce();
  await dispatcher.runOnce();
  const delivered = receiver.accepted().map((r) => JSON.parse(r.body) as { type: string; data: { testCase: { name: string } } });
  expect(delivered.map((d) => [d.type, d.data.testCase.name])).toEqual([
    ['test_case.status_changed', 'discounts'],
    ['test_case.quarantine_changed', 'discounts'],
  ]);
});

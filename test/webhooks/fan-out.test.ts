import { queueEvents } from '../../src/events/queue-events.js';
import { testCaseOutboxEvents } from '../../src/events/test-case-events.js';
import type { WebhookSubscription } from '../../src/store/outbox-store.js';
import { subscriptionWants } from '../../src/webhooks/fan-out.js';
import { aQueue, at } from '../store/fixtures.js';

const hook = (overrides: Partial<WebhookSubscription>): WebhookSubscription => ({
  id: 'wh_1',
  orgId: 'org-1',
  url: 'https://h.example.com',
  format: 'standard',
  events: ['*'],
  repo: null,
  repoKey: null,
  branch: null,
  description: null,
  secret: 'whsec_eA==',
  enabled: true,
  disabledReason: null,
  failingSince: null,
  createdAt: at(0),
  updatedAt: at(0),
  ...overrides,
});

const main = aQueue({ branch: 'main' });
const created = queueEvents(null, main, at(0))[0]!;
const paused = queueEvents(main, { ...main, version: 2, state: 'paused' }, at(1))[0]!;
const quarantined = testCaseOutboxEvents([{ kind: 'quarantine', repoKey: main.repoKey, testCaseId: 't', at: at(1), quarantined: true }], [])[0]!;

test.each([
  ['all events', {}, [true, true, true]],
  ['a group', { events: ['queue.*'] }, [true, true, false]],
  ['one type', { events: ['queue.state_changed'] }, [false, true, false]],
  ['another repository', { repoKey: 'github.com/acme/other' }, [false, false, false]],
  ['this repository', { repoKey: main.repoKey }, [true, true, true]],
  ['another branch (test-case events have none, so they pass)', { branch: 'develop' }, [false, false, true]],
  ['disabled', { enabled: false }, [false, false, false]],
  ['slack: merged, failed, cancelled only', { format: 'slack' as const }, [false, false, false]],
])('%s', (_name, overrides, expected) => {
  expect([created, paused, quarantined].map((e) => subscriptionWants(hook(overrides), e))).toEqual(expected);
});

import { queueEvents } from '../../src/events/queue-events.js';
import { testCaseOutboxEvents } from '../../src/events/test-case-events.js';
import type { WebhookSubscription } from '../../src/store/outbox-store.js';
import { mentionsFor, subscriptionWants } from '../../src/webhooks/fan-out.js';
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

describe("a chat channel's rules from a repository's .github/mergeq.yml", () => {
  const repoKey = main.repoKey;
  /** A PR event of `branch` whose transition gave `code`; only what the fan-out reads is filled in. */
  const prEvent = (code: string, branch: string, key = repoKey) =>
    ({
      id: `evt_${code}_${branch}`,
      type: 'pull_request.failed',
      at: at(2),
      orgId: 'org-1',
      repoKey: key,
      branch,
      orderKey: `${key}#1`,
      data: { kind: 'pull_request', entry: { history: [{ state: 'FAILED', at: at(2), verdict: { code, message: code, evidence: {} } }] } },
    }) as unknown as Parameters<typeof subscriptionWants>[1];
  const channel = hook({
    format: 'slack_blocks',
    events: ['pull_request.*'],
    chat: { verdicts: ['culprit'], mentions: { dev: 'U1', octocat: 'U2' } },
    fileRules: [{ repoKey, source: '.github/mergeq.yml@abc', verdicts: ['culprit', 'bystander'], branches: ['main', 'release/*'], events: ['pull_request.*', 'queue.*'], mentions: { octocat: 'U9' } }],
  });

  test.each([
    ["this repository's culprit on main", prEvent('culprit', 'main'), true],
    ["this repository's bystander: the file's verdicts", prEvent('bystander', 'main'), true],
    ["this repository's bystander on release/2.0: a pattern of the file's branches", prEvent('bystander', 'release/2.0'), true],
    ["this repository's culprit on develop: not one of the file's branches", prEvent('culprit', 'develop'), false],
    ["this repository's queue paused: the file's events", paused, true],
    ["another repository's bystander: the channel's own verdicts", prEvent('bystander', 'main', 'github.com/acme/other'), false],
    ["another repository's culprit on develop: the channel's own (no branch filter)", prEvent('culprit', 'develop', 'github.com/acme/other'), true],
  ])('%s', (_name, event, expected) => {
    expect(subscriptionWants(channel, event)).toBe(expected);
  });

  test("mentions: the file's map over the channel's, for this repository's events only", () => {
    expect(mentionsFor(channel, repoKey)).toEqual({ dev: 'U1', octocat: 'U9' });
    expect(mentionsFor(channel, 'github.com/acme/other')).toEqual({ dev: 'U1', octocat: 'U2' });
  });
});

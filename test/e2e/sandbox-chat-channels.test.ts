import { createRequire } from 'node:module';
import { pino } from 'pino';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { SandboxService } from './sandbox-service.js';
import { LOOPBACK_NETWORKS, WebhookReceiver } from './webhook-receiver.js';

/**
 * Chat channels (docs/notifications.md) end to end: the service wired as in sandbox mode, the real
 * webhook dispatcher, and two stand-ins on 127.0.0.1 for a Slack incoming webhook and a Teams
 * Workflows webhook that record every body. A batch of four with one bad PR: the Slack channel
 * (culprit and bystander) gets Block Kit messages, the Teams channel (culprit only) one Adaptive Card
 * that the `adaptivecards` package parses; both mention the mapped author. A channel answering 500
 * for an hour of virtual time delays no merge, and the failing-channel metric shows it.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'chatty' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const SLACK_MEMBER = 'U024BE7LH';
const TEAMS_USER = 'dev@acme.example';
const SCHEDULE = [5_000, 30_000, 120_000];

interface AdaptiveCardsModule {
  AdaptiveCard: new () => { parse(json: unknown, context: unknown): void; toJSON(): unknown };
  SerializationContext: new () => { eventCount: number; getEventAt(i: number): { message: string } };
}
// The package's ES build imports without file extensions, which Node refuses; its UMD bundle loads.
const AdaptiveCards = createRequire(import.meta.url)('adaptivecards/dist/adaptivecards.js') as AdaptiveCardsModule;

async function start(): Promise<{ svc: SandboxService; dispatcher: WebhookDispatcher }> {
  const svc = await SandboxService.start({ tests: { steadyTests: 2, flakyTests: [] } });
  const dispatcher = new WebhookDispatcher({ store: svc.store, clock: svc.time, logger: pino({ level: 'silent' }), allowedNetworks: LOOPBACK_NETWORKS, retryScheduleMs: SCHEDULE, timeoutMs: 1_000 });
  return { svc, dispatcher };
}

/** Runs the queue `minutes` of virtual time, sending the outbox after each minute. */
async function run(svc: SandboxService, dispatcher: WebhookDispatcher, minutes: number): Promise<void> {
  for (let i = 0; i < minutes; i++) {
    await svc.advanceMinutes(1);
    await dispatcher.runOnce();
  }
}

/** Slack's Block Kit rules for what a message may hold, for the blocks mergeq writes (api.slack.com/reference/block-kit/blocks). */
function expectBlockKit(body: { text?: unknown; blocks?: unknown }): void {
  expect(typeof body.text).toBe('string');
  const blocks = body.blocks as { type: string; text?: { type: string; text: string }; elements?: { type: string; text: string }[] }[];
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks.length).toBeLessThanOrEqual(50);
  for (const b of blocks) {
    expect(['section', 'context']).toContain(b.type);
    const texts = b.type === 'section' ? [b.text!] : b.elements!;
    if (b.type === 'context') expect(b.elements!.length).toBeLessThanOrEqual(10);
    for (const t of texts) {
      expect(Object.keys(t).sort()).toEqual(['text', 'type']);
      expect(t.type).toBe('mrkdwn');
      expect(t.text.length).toBeGreaterThan(0);
      expect(t.text.length).toBeLessThanOrEqual(3000);
    }
  }
}

describe('Slack and Teams channels of a batch with one bad PR', () => {
  let svc: SandboxService;
  let dispatcher: WebhookDispatcher;
  let slack: WebhookReceiver;
  let teams: WebhookReceiver;
  const numbers: number[] = [];

  beforeAll(async () => {
    ({ svc, dispatcher } = await start());
    slack = await WebhookReceiver.start();
    teams = await WebhookReceiver.start();
    await svc.ok('webhooks/create', { url: `${slack.url}/T000/B000/XXXX`, format: 'slack_blocks', events: ['pull_request.*', 'queue.frozen'], verdicts: ['culprit', 'bystander'], mentions: { Dev: SLACK_MEMBER } });
    await svc.ok('webhooks/create', { url: teams.url, format: 'teams', events: ['pull_request.*'], repo: REPO, targetBranch: 'main', mentions: { dev: TEAMS_USER } });
    await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 2, batch: true, batchingMinSize: 4, bisectionConcurrency: 3 });
    for (let i = 0; i < 4; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: i === 1, ciMinutes: 10 })).number);
    for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    await run(svc, dispatcher, 60);
    await svc.ok('freezeQueue', { ...QUEUE, reason: 'release 4.2' });
    await run(svc, dispatcher, 1);
  }, 60_000);
  afterAll(async () => {
    await dispatcher?.stop();
    await svc?.stop();
    await slack?.close();
    await teams?.close();
  });

  const bodies = (r: WebhookReceiver) => r.requests.map((q) => JSON.parse(q.body) as Record<string, unknown>);

  test('Slack got the culprit, three bystanders and the freeze, in Block Kit, the author mentioned as a Slack member', () => {
    const got = bodies(slack);
    // Events are in order per PR, not across PRs: the three bystanders and the culprit may arrive in
    // any order among themselves; the freeze came after them all.
    const heads = got.map((b) => (b.text as string).split(':')[0]!);
    expect(heads.slice(0, 4).filter((h) => h.includes('🔁'))).toHaveLength(3);
    expect(heads.slice(0, 4)).toContain(`❌ acme/chatty#${numbers[1]} "change 2"`);
    expect(heads[4]).toBe('acme/chatty · main');
    expect(got).toHaveLength(5);
    for (const b of got) expectBlockKit(b);
    const culprit = got.find((b) => (b.text as string).startsWith('❌'))!;
    expect(culprit).toEqual({
      text: `❌ acme/chatty#${numbers[1]} "change 2": culprit: culprit: this pull request fails test of #${numbers[1]}`,
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: `*<https://github.com/acme/chatty/pull/${numbers[1]}|❌ acme/chatty#${numbers[1]} "change 2": culprit>*\nculprit: this pull request fails test of #${numbers[1]}`,
          },
        },
        { type: 'section', text: { type: 'mrkdwn', text: `• failing: test of #${numbers[1]} — AssertionError: test of #${numbers[1]} failed\n• isolated by bisection` } },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `merge queue of acme/chatty · main · author <@${SLACK_MEMBER}>` }] },
      ],
    });
    expect(JSON.stringify(got.find((b) => (b.text as string).startsWith('🔁')))).toContain(`• culprit: #${numbers[1]}`);
    expect(got[4]).toMatchObject({ text: 'acme/chatty · main: 🧊 frozen: frozen by test: release 4.2' });
  });

  test('Teams got one Adaptive Card, for the culprit only, that the adaptivecards package parses, with the author mentioned', () => {
    const got = bodies(teams);
    expect(got).toHaveLength(1);
    const message = got[0] as { type: string; attachments: { contentType: string; content: Record<string, unknown> }[] };
    expect(message.type).toBe('message');
    expect(message.attachments.map((a) => a.contentType)).toEqual(['application/vnd.microsoft.card.adaptive']);
    const { msteams, ...card } = message.attachments[0]!.content;
    const context = new AdaptiveCards.SerializationContext();
    const parsed = new AdaptiveCards.AdaptiveCard();
    parsed.parse(card, context);
    expect(Array.from({ length: context.eventCount }, (_, i) => context.getEventAt(i).message)).toEqual([]);
    // Everything written is something an Adaptive Card 1.4 holds: the package writes back the same card.
    expect(parsed.toJSON()).toEqual(card);
    expect(msteams).toEqual({ entities: [{ type: 'mention', text: '<at>dev</at>', mentioned: { id: TEAMS_USER, name: 'dev' } }] });
    expect(JSON.stringify(card)).toContain('merge queue of acme/chatty · main · author <at>dev</at>');
  });

  test('the delivery log shows them delivered, and lists each channel URL only as where it goes', async () => {
    const log = (await svc.ok('webhooks/deliveries', {})).body.deliveries as { status: string; lastError: string | null }[];
    expect(log.length).toBe(6);
    expect(log.every((d) => d.status === 'succeeded' && d.lastError === null)).toBe(true);
    const hooks = (await svc.ok('webhooks/list', {})).body.webhooks as { url: string; format: string; verdicts: string[]; mentions: Record<string, string> }[];
    expect(hooks.map((h) => [h.format, h.url, h.verdicts, h.mentions]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['slack_blocks', `${new URL(slack.url).origin}/hooks/…`, ['culprit', 'bystander'], { dev: SLACK_MEMBER }],
      ['teams', `${new URL(teams.url).origin}/hooks/…`, ['culprit'], { dev: TEAMS_USER }],
    ]);
  });
});

describe('a channel that answers 500 for an hour', () => {
  /** The virtual minute each good PR merged at, for a queue of three with one bad PR, with or without a failing channel. */
  async function mergeMinutes(withFailingChannel: boolean): Promise<{ minutes: number[]; metrics: string; log: { status: string; lastError: string | null }[] }> {
    const { svc, dispatcher } = await start();
    const receiver = await WebhookReceiver.start();
    receiver.mode = 'fail';
    try {
      if (withFailingChannel) {
        await svc.ok('webhooks/create', { url: `${receiver.url}/T1/B1/secret-part`, format: 'slack_blocks', events: ['*'], verdicts: ['culprit', 'bystander', 'flaky', 'policy', 'manual'] });
      }
      await svc.ok('createQueue', { ...QUEUE, concurrency: 3 });
      const numbers: number[] = [];
      for (let i = 0; i < 3; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: i === 0, ciMinutes: 10 })).number);
      for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
      await svc.settle();
      const start = svc.time.now().getTime();
      await run(svc, dispatcher, 60);
      const minutes: number[] = [];
      for (const n of numbers.slice(1)) {
        const pr = (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: n } })).body as { state: string; stateChangedAt: string };
        expect(pr.state).toBe('MERGED');
        minutes.push((Date.parse(pr.stateChangedAt) - start) / 60_000);
      }
      const metrics = (await svc.metrics(REPO)).text;
      const log = (await svc.ok('webhooks/deliveries', {})).body.deliveries;
      if (withFailingChannel) expect(receiver.requests.length).toBeGreaterThan(3);
      return { minutes, metrics, log };
    } finally {
      await dispatcher.stop();
      await svc.stop();
      await receiver.close();
    }
  }

  test('delays no merge: the PRs merge at the same minutes as without it; the metric and the log say it fails, without its URL', async () => {
    const control = await mergeMinutes(false);
    const failing = await mergeMinutes(true);
    expect(failing.minutes).toEqual(control.minutes);
    const seconds = Number(/^mq_webhook_failing_seconds\{[^}]*format="slack_blocks"[^}]*\} (\S+)$/m.exec(failing.metrics)?.[1]);
    expect(seconds).toBeGreaterThan(50 * 60);
    expect(failing.log.length).toBeGreaterThan(0);
    expect(new Set(failing.log.map((d) => d.lastError))).toEqual(new Set(['the receiver answered 500']));
    expect(JSON.stringify(failing.log)).not.toContain('secret-part');
  }, 60_000);
});

import { pino } from 'pino';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { SandboxService } from './sandbox-service.js';
import { SlackApiStandIn } from './slack-api-stand-in.js';
import { LOOPBACK_NETWORKS, WebhookReceiver } from './webhook-receiver.js';

/**
 * A Slack channel with a bot token (docs/notifications.md, "Direct messages to the author"), end to
 * end: the service wired as in sandbox mode, the real dispatcher pointed at a local stand-in for
 * Slack's Web API (as MERGEQ_SLACK_API_URL would) beside a stand-in incoming webhook, both recording
 * exact bodies. Four bad PRs, each a culprit of its own run, by four authors: one mapped to a Slack
 * member, one not in the map, one mapped to a member Slack does not know (user_not_found), one whose
 * direct message is rate limited once for an hour. Every log line of the dispatcher and the HTTP app
 * is kept, to look for the token in.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'dms' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const TOKEN = 'xoxb-1234567890-0987654321-s3cr3tBotT0kenValue';
const MEMBER = 'U024BE7LH';
const UNKNOWN_MEMBER = 'U0GONE000';
const BUSY_MEMBER = 'U0BUSY000';
const SCHEDULE = [5_000, 30_000, 120_000];

describe('a Slack channel with a bot token: direct messages to the culprit author', () => {
  let svc: SandboxService;
  let dispatcher: WebhookDispatcher;
  let slackApi: SlackApiStandIn;
  let channel: WebhookReceiver;
  const logLines: string[] = [];
  const answers: string[] = [];
  const pr: Record<'mapped' | 'unmapped' | 'unknown' | 'busy', number> = { mapped: 0, unmapped: 0, unknown: 0, busy: 0 };
  let rateLimitedAt = 0;
  /** Two minutes after Slack first refused a direct message: the channel as listed, and the metrics. */
  let whileFailing: { hooks: { failingSince: string | null }[]; metrics: string } | null = null;

  beforeAll(async () => {
    const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
    svc = await SandboxService.start({ tests: { steadyTests: 2, flakyTests: [] } }, { logger });
    slackApi = await SlackApiStandIn.start();
    slackApi.answers.set(UNKNOWN_MEMBER, { error: 'user_not_found' });
    slackApi.answers.set(BUSY_MEMBER, { rateLimitedOnceFor: 3600 });
    channel = await WebhookReceiver.start();
    dispatcher = new WebhookDispatcher({
      store: svc.store,
      clock: svc.time,
      logger,
      allowedNetworks: LOOPBACK_NETWORKS,
      retryScheduleMs: SCHEDULE,
      timeoutMs: 1_000,
      slackApiUrl: slackApi.apiUrl,
    });
    const keep = (res: { text: string }) => void answers.push(res.text);
    const created = await svc.ok('webhooks/create', {
      url: `${channel.url}/T000/B000/XXXX`,
      format: 'slack_blocks',
      events: ['pull_request.*'],
      verdicts: ['culprit'],
      mentions: { Dev: MEMBER, ghost: UNKNOWN_MEMBER, busy: BUSY_MEMBER },
      slackBotToken: TOKEN,
    });
    keep(created);
    await svc.ok('createQueue', { ...QUEUE, concurrency: 4 });
    for (const [key, author] of [['mapped', 'dev'], ['unmapped', 'stranger'], ['unknown', 'ghost'], ['busy', 'busy']] as const) {
      pr[key] = (await svc.openPull(REPO, `change by ${author}`, { bad: true, ciMinutes: 10, author })).number;
      await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: pr[key] } });
    }
    await svc.settle();
    let refusedAt: number | null = null;
    for (let minute = 0; minute < 110; minute++) {
      await svc.advanceMinutes(1);
      await dispatcher.runOnce();
      if (!rateLimitedAt && slackApi.calls.some((c) => c.answered.status === 429)) rateLimitedAt = svc.time.now().getTime();
      if (refusedAt === null && slackApi.calls.some((c) => c.answered.body.error === 'user_not_found')) refusedAt = minute;
      if (minute === (refusedAt ?? -10) + 2) whileFailing = { hooks: (await svc.ok('webhooks/list', {})).body.webhooks, metrics: (await svc.metrics(REPO)).text };
    }
    keep(await svc.ok('webhooks/list', {}));
    keep(await svc.ok('webhooks/deliveries', {}));
  }, 90_000);

  afterAll(async () => {
    await dispatcher?.stop();
    await svc?.stop();
    await slackApi?.close();
    await channel?.close();
  });

  const channelPosts = () => channel.requests.map((r) => JSON.parse(r.body) as { text: string; blocks: unknown[] });
  const dmsTo = (member: string) => slackApi.calls.filter((c) => SlackApiStandIn.fields(c).channel === member);
  const deliveryOf = async (n: number) => {
    const log = (await svc.ok('webhooks/deliveries', {})).body.deliveries as { eventId: string; status: string; attempts: number; lastError: string | null; responseStatus: number | null; nextAttemptAt: string | null; lastAttemptAt: string | null }[];
    const posts = channelPosts();
    // Deliveries and channel posts are matched by the PR number in the message.
    return { log, post: posts.filter((p) => p.text.includes(`#${n} `)) };
  };

  test('the mapped author gets one direct message through chat.postMessage, with the same Block Kit blocks as the channel post, sent with the bot token', () => {
    const calls = dmsTo(MEMBER);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.method).toBe('chat.postMessage');
    expect(call.authorization).toBe(`Bearer ${TOKEN}`);
    expect(call.contentType).toBe('application/x-www-form-urlencoded');
    const fields = SlackApiStandIn.fields(call);
    expect(Object.keys(fields).sort()).toEqual(['blocks', 'channel', 'text']);
    const n = pr.mapped;
    const posted = channelPosts().find((p) => p.text.includes(`#${n} `));
    expect(posted).toBeDefined();
    expect({ text: fields.text, blocks: JSON.parse(fields.blocks!) }).toEqual(posted);
    expect(JSON.parse(fields.blocks!)).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: `*<https://github.com/acme/dms/pull/${n}|❌ acme/dms#${n} "change by dev": culprit>*\nculprit: this pull request fails test of #${n}` } },
      { type: 'section', text: { type: 'mrkdwn', text: `• failing: test of #${n} — AssertionError: test of #${n} failed\n• isolated by own run` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `merge queue of acme/dms · main · author <@${MEMBER}>` }] },
    ]);
  });

  test('an author not in the map gets no direct message, and the channel post is made all the same', async () => {
    const n = pr.unmapped;
    const { post } = await deliveryOf(n);
    expect(post).toHaveLength(1);
    expect(JSON.stringify(post[0])).toContain('author @stranger');
    const dmTexts = slackApi.calls.map((c) => SlackApiStandIn.fields(c).text ?? '');
    expect(dmTexts.filter((t) => t.includes(`#${n} `))).toEqual([]);
    expect(slackApi.calls.map((c) => SlackApiStandIn.fields(c).channel).sort()).toEqual([BUSY_MEMBER, BUSY_MEMBER, MEMBER, ...Array(4).fill(UNKNOWN_MEMBER)].sort());
  });

  test("Slack's ok:false is a failed attempt with Slack's error code, retried on the schedule without posting to the channel again; the channel shows as failing", async () => {
    const { log, post } = await deliveryOf(pr.unknown);
    expect(post).toHaveLength(1);
    // One attempt and the three retries of the schedule, each a chat.postMessage that Slack refused.
    expect(dmsTo(UNKNOWN_MEMBER)).toHaveLength(4);
    const failed = log.filter((d) => d.status === 'failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempts: 4, responseStatus: 200, lastError: 'direct message to the author: Slack answered ok:false, user_not_found' });
    // While it failed, the channel was listed (and so shown on the page) as failing, and the metric counted.
    expect(whileFailing?.hooks).toEqual([expect.objectContaining({ failingSince: expect.any(String) })]);
    const seconds = Number(/^mq_webhook_failing_seconds\{[^}]*format="slack_blocks"[^}]*\} (\S+)$/m.exec(whileFailing!.metrics)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(60);
  });

  test("Slack's 429 is a failed attempt tried again after its Retry-After, not the schedule's 5 s; then the message goes, the channel posted once", async () => {
    const calls = dmsTo(BUSY_MEMBER);
    expect(calls.map((c) => c.answered.status)).toEqual([429, 200]);
    const { log, post } = await deliveryOf(pr.busy);
    expect(post).toHaveLength(1);
    const delivered = log.filter((d) => d.status === 'succeeded' && d.attempts === 2);
    expect(delivered).toHaveLength(1);
    // Tried again an hour after the 429 (within the minute the dispatcher runs), not 5 s after.
    expect(Date.parse(delivered[0]!.lastAttemptAt!) - rateLimitedAt).toBeGreaterThanOrEqual(59 * 60_000);
  });

  test('the bot token appears in no answer of the API and no log line', () => {
    expect(answers.length).toBe(3);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('webhook delivery failed'))).toBe(true);
    for (const text of [...answers, ...logLines]) expect(text).not.toContain(TOKEN.slice(5));
    expect(JSON.parse(answers[0]!)).toMatchObject({ format: 'slack_blocks', directMessages: true });
  });
});

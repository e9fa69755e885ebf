/// <reference lib="dom" />
import type { Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { eventPayload } from '../../src/webhooks/payload.js';
import { chromiumPath, launchChromium, listenLocally, signIn } from './browser.js';
import { SandboxService } from './sandbox-service.js';

/**
 * A storm through the engine, the REST API, the outbox and the web page (docs/queue-rules.md,
 * "Storms"): a bad PR at the head fails every run and a bot puts it back at the head each time
 * (urgent), for 30 minutes of virtual time, while the good PRs behind it need 40 minutes of CI.
 * Ten runs end and nothing merges: `queue.storm_started` once, getQueue's `storm` naming the PR,
 * `mq_queue_storm` 1 and the page's banner saying so.
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'storm' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const QUERY = new URLSearchParams({ repo: 'github.com/acme/storm', branch: 'main' });
const chromium = chromiumPath();

interface StormJson {
  since: string;
  runs: number;
  minutes: number;
  cause: { prNumber: number | null; prFailures: number; flakyTests: string[]; ciErrors: number };
  message: string;
}

describe('a head that fails on every run', () => {
  let svc: SandboxService;
  let bad: number;
  let storm: StormJson | null = null;
  let stormEvents: { type: string; data: { queue: { storm: StormJson | null } } }[] = [];
  let server: Server | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    svc = await SandboxService.start();
    await svc.ok('webhooks/create', { url: 'http://127.0.0.1:9/hook', events: ['queue.*'] });
    await svc.ok('createQueue', { ...QUEUE, concurrency: 3 });
    bad = (await svc.openPull(REPO, 'broken', { bad: true, ciMinutes: 2 })).number;
    const good = [(await svc.openPull(REPO, 'fine 1', { bad: false, ciMinutes: 40 })).number, (await svc.openPull(REPO, 'fine 2', { bad: false, ciMinutes: 40 })).number];
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: bad } });
    for (const n of good) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    for (let minute = 0; minute < 30; minute++) {
      const r = (await svc.ok('getSubmittedPullRequest', { ...QUEUE, pr: { number: bad } })).body as { state: string };
      if (r.state === 'FAILED') await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: bad }, priority: 'urgent' });
      await svc.advanceMinutes(1);
    }
    storm = (await svc.ok('getQueue', QUEUE)).body.storm as StormJson | null;
    stormEvents = (await svc.store.outbox.undispatchedEvents(10_000)).map(eventPayload).filter((e) => e.type.startsWith('queue.storm')) as unknown as typeof stormEvents;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await svc?.stop();
  });

  test('getQueue says the queue is in a storm and names the failing PR', () => {
    expect(storm).toMatchObject({ minutes: 30, cause: { prNumber: bad, ciErrors: 0 } });
    expect(storm!.runs).toBeGreaterThanOrEqual(10);
    expect(storm!.cause.prFailures).toBeGreaterThanOrEqual(10);
    expect(storm!.message).toMatch(new RegExp(`^storm: \\d+ runs ended in 30 minutes and nothing merged; #${bad} failed \\d+ of them$`));
  });

  test('queue.storm_started is sent once, with the storm', () => {
    expect(stormEvents.map((e) => e.type)).toEqual(['queue.storm_started']);
    expect(stormEvents[0]!.data.queue.storm).toMatchObject({ cause: { prNumber: bad } });
  });

  test('mq_queue_storm is 1', async () => {
    const res = await svc.metrics(REPO);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/^mq_queue_storm\{[^}]*branch="main"[^}]*\} 1$/m);
  });

  (chromium ? test : test.skip)('the queue page shows the storm banner naming the PR', async () => {
    let base: string;
    ({ server, base } = await listenLocally(svc.app));
    browser = await launchChromium(chromium!);
    const page: Page = await browser.newPage();
    await signIn(page, base, svc.token);
    await page.goto(`${base}/ui/#/queue?${QUERY}`);
    const banner = await page.waitForSelector('#storm');
    expect(await banner!.evaluate((n) => (n as HTMLElement).innerText)).toMatch(new RegExp(`^Storm since .+: \\d+ runs ended in 30 minutes and nothing merged; #${bad} failed \\d+ of them\\.$`));
  }, 30_000);
});

/// <reference lib="dom" />
import type { Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { chromiumPath, launchChromium, listenLocally, signIn } from './browser.js';
import { SandboxService } from './sandbox-service.js';

/**
 * The 80% merge range on the web page, in a real browser (Debian's chromium): a queue whose recent
 * runs took 8 and 20 minutes shows each queued PR's ETA with the range beside it, on the queue page
 * and on the PR's page, as the API gives it.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'ranges' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const REPO_PARAM = 'github.com/acme/ranges';
const chromium = chromiumPath();
if (!chromium) console.log('ui-eta-range tests skipped: no Chromium installed (apt-get install chromium, or set CHROMIUM_PATH)');
const describeWithBrowser = chromium ? describe : describe.skip;

let svc: SandboxService;
let server: Server;
let base: string;
let browser: Browser;
let page: Page;

/** The page's way of writing a time: hours and minutes in the browser's locale. */
const shown = (iso: string) => page.evaluate((t) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), iso);

describeWithBrowser('the ETA range on the web page', () => {
  beforeAll(async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 1 });
    for (const ciMinutes of [8, 20]) {
      const n = (await svc.openPull(REPO, `history ${ciMinutes}`, { bad: false, ciMinutes })).number;
      await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
      await svc.settle();
      await svc.advanceMinutes(ciMinutes + 1);
    }
    ({ server, base } = await listenLocally(svc.app));
    browser = await launchChromium(chromium!);
    page = await browser.newPage();
    await signIn(page, base, svc.token);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await svc?.stop();
  });

  test('each queued PR shows its ETA and the range 80% of merges fall in, on the queue page and its own page', async () => {
    const numbers: number[] = [];
    for (let i = 0; i < 2; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: false, ciMinutes: 12 })).number);
    for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    const queued = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests as { prNumber: number; estimatedMergeAt: string; estimatedMergeRange: { earliest: string; latest: string } }[];
    expect(queued).toHaveLength(2);
    const want = await Promise.all(
      queued.map(async (p) => `${await shown(p.estimatedMergeAt)} (${await shown(p.estimatedMergeRange.earliest)}–${await shown(p.estimatedMergeRange.latest)})`),
    );
    // The PR behind waits for the one ahead: its range is a real span, not a point.
    expect(queued[1]!.estimatedMergeRange.latest).not.toBe(queued[1]!.estimatedMergeRange.earliest);

    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('span.eta');
    await page.waitForFunction((n) => document.querySelectorAll('span.eta').length === n, { timeout: 5_000 }, 2);
    expect(await page.$$eval('span.eta', (spans) => spans.map((s) => s.textContent))).toEqual(want);

    await page.goto(`${base}/ui/#/pull?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main', number: String(queued[1]!.prNumber) })}`);
    await page.waitForFunction((w) => document.body.textContent?.includes(`ETA ${w}`), { timeout: 5_000 }, want[1]!);
  }, 60_000);
});

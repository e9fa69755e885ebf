/// <reference lib="dom" />
import type { Server } from 'node:http';
import type { Browser, Page } from 'puppeteer-core';
import { chromiumPath, launchChromium, listenLocally, signIn } from './browser.js';
import { SandboxService } from './sandbox-service.js';

/**
 * "Why is my PR stuck?" answered on the web page, not only in raw JSON: the git host's note for a PR
 * that is not ready, and a freeze, on the queues page, the queue page and the PR page.
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'why' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const QUERY = new URLSearchParams({ repo: 'github.com/acme/why', branch: 'main' });
const chromium = chromiumPath();
const describeWithBrowser = chromium ? describe : describe.skip;

let svc: SandboxService;
let server: Server;
let base: string;
let browser: Browser;
let page: Page;

const textOf = (selector: string) => page.$eval(selector, (n) => (n as HTMLElement).innerText);

describeWithBrowser('the web page says why', () => {
  beforeAll(async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', QUEUE);
    // #5 was never opened in the sandbox: the engine finds no such PR there.
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: 5 } });
    await svc.settle();
    await svc.ok('freezeQueue', { ...QUEUE, reason: 'release 4.2', endsAt: '2026-12-24T00:00:00Z' });
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

  test('the queues page shows a frozen queue as held, naming the freeze, not as plain running', async () => {
    const row = await textOf('table tbody tr');
    expect(row).toContain('held: frozen until 2026-12-24 00:00 UTC: release 4.2');
  });

  test("the queue page's Reason column gives the git host's note for a PR that is not ready", async () => {
    await page.goto(`${base}/ui/#/queue?${QUERY}`);
    await page.waitForSelector('h2::-p-text(Pull requests (1))');
    const row = await page.$$eval('table tbody tr', (rows) => rows.map((r) => (r as HTMLElement).innerText).find((t) => t.includes('#5')) ?? '');
    expect(row).toContain('Not ready: the pull request was not found');
  });

  test('the PR page says what keeps it not ready, shows no empty author, and marks unknown readiness as unknown, not "not yet"', async () => {
    await page.goto(`${base}/ui/#/pull?${QUERY}&number=5`);
    await page.waitForSelector('#note');
    expect(await textOf('#note')).toBe('Not ready: the pull request was not found');
    expect(await textOf('main')).not.toContain('by \n');
    expect(await textOf('main')).not.toMatch(/· by\s*$/m);
    const checklist = await textOf('ul.checklist');
    expect(checklist).toContain('? Open (unknown)');
    expect(checklist).not.toContain('(not yet)');
  });
});

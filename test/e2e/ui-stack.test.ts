/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { chromiumPath, launchChromium, listenLocally, seriousAxeViolations, signIn } from './browser.js';
import { SandboxService } from './sandbox-service.js';

/**
 * A stack on the web page, in a real browser (Debian's chromium): a 3-member chain queued behind a
 * single PR is one card of the queue listing its three members bottom first, its position spanning
 * theirs and its ETA the unit's (its top member's: the whole unit merges at once); the member's own
 * page names the stack. The page stays free of serious accessibility violations. With
 * MERGEQ_UI_SCREENSHOTS=<dir> it saves a screenshot of the queue page.
 */
const REPO = { host: 'github.com', owner: 'acme', name: 'layers' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const REPO_PARAM = 'github.com/acme/layers';
const chromium = chromiumPath();
if (!chromium) console.log('ui-stack tests skipped: no Chromium installed (apt-get install chromium, or set CHROMIUM_PATH)');
const describeWithBrowser = chromium ? describe : describe.skip;

let svc: SandboxService;
let server: Server;
let base: string;
let browser: Browser;
let page: Page;

const SCREENSHOTS = process.env.MERGEQ_UI_SCREENSHOTS;
async function screenshot(name: string) {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
const shown = (iso: string) => page.evaluate((t) => new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), iso);


describeWithBrowser('a stack on the web page', () => {
  beforeAll(async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 1 });
    // One landed PR gives the queue its CI history, hence ETAs.
    const history = (await svc.openPull(REPO, 'history', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: history } });
    await svc.settle();
    await svc.advanceMinutes(11);
    ({ server, base } = await listenLocally(svc.app));
    browser = await launchChromium(chromium!);
    page = await browser.newPage();
    await page.setBypassCSP(true); // axe is injected as a script
    await page.setViewport({ width: 1100, height: 800 });
    await signIn(page, base, svc.token);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await svc?.stop();
  });

  test('a 3-member chain queued is one card listing its three members, with the unit’s position and ETA', async () => {
    const ahead = (await svc.openPull(REPO, 'ahead', { bad: false, ciMinutes: 10 })).number;
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: ahead } });
    await svc.settle();
    const layers: number[] = [];
    for (let i = 0; i < 3; i++) {
      const stackOn = layers.at(-1);
      layers.push((await svc.openPull(REPO, `layer ${i + 1}`, { bad: false, ciMinutes: 10, ...(stackOn ? { stackOn } : {}) })).number);
    }
    await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: layers[2] }, stack: { below: true } });
    await svc.settle();
    const queued = (await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests as { prNumber: number; position: number; estimatedMergeAt: string | null }[];
    expect(queued.map((p) => [p.prNumber, p.position])).toEqual([[ahead, 1], [layers[0], 2], [layers[1], 3], [layers[2], 4]]);
    const top = queued[3]!;
    expect(top.estimatedMergeAt).not.toBeNull();
    // The unit merges at once: every member has the same estimate, after the PR ahead's.
    expect(queued.slice(1).map((p) => p.estimatedMergeAt)).toEqual([top.estimatedMergeAt, top.estimatedMergeAt, top.estimatedMergeAt]);
    expect(Date.parse(top.estimatedMergeAt!)).toBeGreaterThan(Date.parse(queued[0]!.estimatedMergeAt!));

    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('h2::-p-text(Pull requests (4))');
    const rows = await page.$eval('table', (table) =>
      Array.from(table.querySelectorAll('tbody tr')).map((tr) => ({
        cells: Array.from(tr.children).map((td) => (td as HTMLElement).innerText.trim()),
        links: Array.from(tr.querySelectorAll('td:nth-child(2) a')).map((a) => a.textContent ?? ''),
        members: Array.from(tr.querySelectorAll('ol.unit-members li')).map((li) => (li as HTMLElement).innerText.trim()),
      })),
    );
    // Two rows, not four: the PR ahead, then the stack as one card.
    expect(rows).toHaveLength(2);
    expect(rows[0]!.links).toEqual([`#${ahead} ahead`]);
    const card = rows[1]!;
    expect(card.cells[1]).toContain('Chain · 3 PRs');
    expect(card.members).toEqual(layers.map((n, i) => `#${n} layer ${i + 1}`));
    expect(card.cells[0]).toBe('2–4');
    expect(card.cells[2]).toBe('PENDING');
    expect(card.cells[4]!.startsWith(await shown(top.estimatedMergeAt!))).toBe(true);
    await screenshot('queue-stack');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.goto(`${base}/ui/#/pull?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main', number: String(layers[1]) })}`);
    await page.waitForSelector('#stack');
    expect(await page.$eval('#stack', (n) => (n as HTMLElement).innerText)).toBe(`Chain · 3 PRs, layer 2: #${layers[0]}, #${layers[1]}, #${layers[2]} · tested and landed as one`);
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 60_000);
});

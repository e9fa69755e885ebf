/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import { chromiumPath, launchChromium, listenLocally, seriousAxeViolations, signIn } from './browser.js';
import { SandboxService } from './sandbox-service.js';

/**
 * The web page in a real browser (Debian's chromium through puppeteer-core) against the service
 * wired as in sandbox mode, with virtual time: sign in, watch ten PRs (one bad) go through the
 * queue live, read the failed PR's timeline, pause and resume, and another organization sees nothing.
 * With MERGEQ_UI_SCREENSHOTS=<dir> (`npm run ui:screenshots`) it saves a screenshot of each page.
 */

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };
const REPO_PARAM = 'github.com/acme/widgets';
const SCREENSHOTS = process.env.MERGEQ_UI_SCREENSHOTS;
const chromium = chromiumPath();
if (!chromium) console.log('ui-browser tests skipped: no Chromium installed (apt-get install chromium, or set CHROMIUM_PATH)');
const describeWithBrowser = chromium ? describe : describe.skip;

let svc: SandboxService;
let server: Server;
let base: string;
let browser: Browser;
let page: Page;
const numbers: number[] = [];
let bad: number;

const text = (selector: string) => page.$eval(selector, (n) => n.textContent ?? '');
const waitForText = (selector: string, wanted: string, timeout = 5_000) =>
  page.waitForFunction((sel, w) => Array.from(document.querySelectorAll(sel)).some((n) => (n.textContent ?? '').includes(w)), { timeout }, selector, wanted);
/** The queue's own page, after a save: the settings page's title names the queue too ("Settings of …"). */
const queueViewShown = () =>
  page.waitForFunction(() => location.hash.startsWith('#/queue') && document.querySelector('h1')?.textContent === 'acme/widgets · main', { timeout: 5_000 });
async function screenshot(name: string, width = 1100) {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.setViewport({ width, height: 800 });
  // The header is sticky: from the top, so that it is drawn once, above the content.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await page.setViewport({ width: 1100, height: 800 });
}

describeWithBrowser('the web page in a browser', () => {
  beforeAll(async () => {
    svc = await SandboxService.start();
    await svc.ok('createQueue', { ...QUEUE, mode: 'single', concurrency: 4 });
    for (let i = 0; i < 10; i++) numbers.push((await svc.openPull(REPO, `change ${i + 1}`, { bad: i === 2, ciMinutes: 10 })).number);
    bad = numbers[2]!;
    ({ server, base } = await listenLocally(svc.app));
    browser = await launchChromium(chromium!);
    page = await browser.newPage();
    // axe is injected as a script; the page's own policy allows only its own files.
    await page.setBypassCSP(true);
    await page.setViewport({ width: 1100, height: 800 });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await svc?.stop();
  });

  test('a wrong token is refused with a message; the right one signs in with an HttpOnly, SameSite=Strict cookie', async () => {
    await page.goto(`${base}/ui/`);
    await page.waitForSelector('#token');
    // Signed out: no "Sign out"; the page says where a token comes from.
    expect(await page.$eval('#sign-out', (b) => (b as HTMLElement).offsetParent === null)).toBe(true);
    expect(await text('#token-help')).toContain('npx mergeq token create --org <org>');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.reload(); // without axe's script
    await page.waitForSelector('#token');
    await screenshot('sign-in');
    await page.type('#token', 'mq_not-a-token');
    await page.keyboard.press('Enter');
    await waitForText('[role=alert]', 'unknown or revoked');
    await page.$eval('#token', (n) => ((n as HTMLInputElement).value = ''));
    await signIn(page, base, svc.token);
    expect(await page.$eval('#sign-out', (b) => (b as HTMLElement).offsetParent !== null)).toBe(true);
    const cookies = await browser.cookies();
    expect(cookies.map((c) => ({ name: c.name, httpOnly: c.httpOnly, sameSite: c.sameSite }))).toEqual([{ name: 'mq_session', httpOnly: true, sameSite: 'Strict' }]);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain('mq_');
    expect(page.url()).not.toContain('mq_');
  });

  test('the queue list and the queue move live, without a reload, to 9 merged and 1 failed', async () => {
    await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
    await page.locator(`a[href*="repo=github.com%2Facme%2Fwidgets"]`).click();
    await waitForText('h2', 'Pull requests (0)');
    for (const n of numbers) await svc.ok('submitPullRequest', { ...QUEUE, pr: { number: n } });
    await svc.settle();
    await waitForText('h2', 'Pull requests (10)', 3_000);
    await waitForText('h2', 'Runs in flight (4)', 3_000);
    // Every PR says why it is where it is; TESTING and PENDING are drawn differently; a run says what it does.
    const rows = await page.$$eval('table:first-of-type tbody tr', (trs) => trs.map((tr) => {
      const badge = tr.querySelector('.state') as HTMLElement;
      return { state: badge.textContent, background: getComputedStyle(badge).backgroundColor, reason: tr.lastElementChild?.textContent ?? '' };
    }));
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(row.reason).not.toBe('');
    const look = (state: string) => rows.find((r) => r.state === state)?.background;
    expect(look('TESTING')).toBeDefined();
    expect(look('PENDING')).toBeDefined();
    expect(look('TESTING')).not.toBe(look('PENDING'));
    const runTexts = await page.$$eval('.run-does', (ps) => ps.map((p) => p.textContent ?? ''));
    expect(runTexts).toHaveLength(4);
    for (const t of runTexts) expect(t).toMatch(/^Testing #\d+.* on main · waiting for CI$/);
    expect(await page.$$eval('.run .state', (b) => b.map((x) => x.textContent))).toEqual(['testing', 'testing', 'testing', 'testing']);
    await screenshot('queue');
    await screenshot('queue-phone', 390);
    for (let minute = 0; minute < 120; minute++) {
      await svc.advanceMinutes(1);
      if (minute === 11 && SCREENSHOTS) {
        // The first runs have finished: the queue has a CI history, so the PRs have ETAs.
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await screenshot('queue-live');
        await screenshot('queue-live-phone', 390);
      }
      if ((await svc.ok('getQueue', QUEUE)).body.enqueuedPullRequests.length === 0) break;
    }
    await waitForText('p.muted', 'The queue is empty.', 3_000);
    // The PRs that left the queue stay on its page, with their reason.
    await waitForText('h2', 'Merged or failed in the last 24 hours (10)', 3_000);
    const ended = await page.$$eval('section[aria-labelledby=ended-title] tbody tr', (trs) => trs.map((tr) => Array.from(tr.children).map((td) => td.textContent ?? '')));
    expect(ended.filter((r) => r[1] === 'MERGED')).toHaveLength(9);
    const failedRow = ended.find((r) => r[0]!.startsWith(`#${bad} `));
    expect(failedRow?.[1]).toBe('FAILED');
    expect(failedRow?.[3]).toMatch(/fail/i);
    await screenshot('queue-ended');
    await page.locator('a[href="#/"]').click();
    await page.waitForSelector('h1::-p-text(Queues)');
    const row = await page.$$eval('tbody tr td', (cells) => cells.map((c) => c.textContent));
    expect(row.slice(0, 7)).toEqual(['acme/widgets · main', 'running', 'single', '0', '0', '9', '1']);
    await screenshot('queues');
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
  }, 60_000);

  test("the failed PR's timeline says why it failed", async () => {
    await page.goto(`${base}/ui/#/pull?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main', number: String(bad) })}`);
    await page.waitForSelector('#reason');
    expect(await text('#reason')).toMatch(/Reason: .*fail/i);
    const timeline = await page.$$eval('ol.timeline li', (items) => items.map((li) => li.textContent ?? ''));
    expect(timeline[0]).toContain('NOT_READY');
    expect(timeline.at(-1)).toContain('FAILED');
    // Its verdict (docs/verdicts.md): culprit, beside the transition that gave it.
    expect(await text('#verdict-title')).toBe('Verdict culprit');
    expect(await text('#verdict')).toContain('culprit: this pull request fails the required checks');
    expect(timeline.at(-1)).toContain('FAILED culprit');
    expect(await page.$$eval('.run .error', (n) => n.map((e) => e.textContent ?? ''))).toEqual(expect.arrayContaining([expect.stringContaining('Failing:')]));
    await screenshot('pull-request');
  });

  test('pause and resume from the page, with the keyboard', async () => {
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('button::-p-text(Pause)');
    await page.focus('button::-p-text(Pause)');
    await page.keyboard.press('Enter');
    await page.waitForSelector('button::-p-text(Resume)');
    expect((await svc.ok('getQueue', QUEUE)).body.state).toBe('paused');
    await page.focus('button::-p-text(Resume)');
    await page.keyboard.press('Enter');
    await page.waitForSelector('button::-p-text(Pause)');
    expect((await svc.ok('getQueue', QUEUE)).body.state).toBe('running');
  });

  test('freeze with a reason and unfreeze from the page; the page says why merges wait', async () => {
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.locator('input[name=reason]').fill('release 4.2 goes out');
    await page.locator('button::-p-text(Freeze)').click();
    const notice = await page.waitForSelector('p.notice::-p-text(Frozen until unfrozen)');
    expect(await notice!.evaluate((n) => n.textContent)).toMatch(/^Frozen until unfrozen by .+: release 4\.2 goes out\. Passed pull requests wait unmerged/);
    expect((await svc.ok('getQueue', QUEUE)).body.freeze).toMatchObject({ reason: 'release 4.2 goes out', endsAt: null });
    await page.locator('button::-p-text(Unfreeze)').click();
    await page.waitForSelector('input[name=reason]');
    expect(await page.$('p.notice::-p-text(Frozen)')).toBeNull();
    expect((await svc.ok('getQueue', QUEUE)).body.freeze).toBeNull();
  });

  test('a live update whose data arrives after the person began typing a freeze reason keeps what they typed', async () => {
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('input[name=reason]');
    // Hold the page's next read of the queue: a live update is under way, its data not yet back.
    let held: HTTPRequest | null = null;
    const hold = (req: HTTPRequest) => {
      if (!held && req.url().includes('/ui/api/queue?')) held = req;
      else void req.continue();
    };
    await page.setRequestInterception(true);
    page.on('request', hold);
    try {
      await svc.ok('updateQueue', { ...QUEUE, concurrency: 5 });
      for (let i = 0; i < 500 && !held; i++) await new Promise((r) => setTimeout(r, 10));
      expect(held).not.toBeNull();
      await page.locator('input[name=reason]').fill('hotfix only');
      await held!.continue();
      await waitForText('#live', 'Updated');
    } finally {
      page.off('request', hold);
      await page.setRequestInterception(false);
    }
    expect(await page.$eval('input[name=reason]', (n) => (n as HTMLInputElement).value)).toBe('hotfix only');
    await page.locator('button::-p-text(Freeze)').click();
    await page.waitForSelector('p.notice::-p-text(Frozen until unfrozen)');
    // Left by its own action, the page shows what the live update brought.
    await waitForText('p', 'concurrency 5');
    await page.locator('button::-p-text(Unfreeze)').click();
    await page.waitForSelector('input[name=reason]');
    await svc.ok('updateQueue', { ...QUEUE, concurrency: 4 });
  });

  test('queue settings are changed from the page, checked as the API checks them', async () => {
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.locator('a::-p-text(Settings)').click();
    await page.waitForSelector('#setting-concurrency');
    await page.$eval('#setting-concurrency', (n) => ((n as HTMLInputElement).value = ''));
    await page.type('#setting-concurrency', '0');
    await page.locator('button::-p-text(Save)').click();
    await waitForText('#setting-concurrency-error', 'at least 1');
    expect(await text('[role=alert]')).toContain('Not saved');
    expect((await svc.ok('getQueue', QUEUE)).body.concurrency).toBe(4);
    await screenshot('queue-settings-error');

    await page.$eval('#setting-concurrency', (n) => ((n as HTMLInputElement).value = ''));
    await page.type('#setting-concurrency', '6');
    await page.select('#setting-mergeMethod', 'rebase');
    await page.locator('button::-p-text(Save)').click();
    await queueViewShown();
    await waitForText('p', 'concurrency 6');
    expect((await svc.ok('getQueue', QUEUE)).body).toMatchObject({ concurrency: 6, mergeMethod: 'rebase' });
    await svc.ok('updateQueue', { ...QUEUE, concurrency: 4, mergeMethod: 'squash' });
  });

  test('merge windows and auto-enqueue are edited as forms (days, hours, time zone; authors, readiness), checked as the API checks them', async () => {
    await page.goto(`${base}/ui/#/settings?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('#setting-mergeWindows');
    // No JSON to type: a window is added with buttons, days ticked, hours and a time zone typed.
    expect(await page.$$('textarea#setting-mergeWindows, textarea#setting-autoEnqueue')).toEqual([]);
    await page.locator('button::-p-text(Add a window)').click();
    await page.waitForSelector('.window');
    for (const day of ['wed', 'thu', 'fri']) await page.$eval(`.window .days input[value=${day}]`, (n) => (n as HTMLInputElement).click());
    const typeInto = async (selector: string, value: string) => {
      await page.$eval(selector, (n) => ((n as HTMLInputElement).value = ''));
      await page.type(selector, value);
    };
    await typeInto('.window .start', '17:00');
    await typeInto('.window .end', '09:00');
    await typeInto('#setting-mergeWindows-timeZone', 'Mars/Olympus');
    await page.type('#setting-enqueueLabel', 'ready to merge');
    await page.$eval('#setting-autoEnqueue-enabled', (n) => (n as HTMLInputElement).click());
    await page.type('#setting-autoEnqueue-authors', 'renovate[bot]\ndependabot[bot]');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator('button::-p-text(Save)').click();
    // The API's own checks: the time zone, and a window ending before it starts, each named with its path.
    await waitForText('#setting-mergeWindows-error', 'time zone');
    expect(await text('#setting-mergeWindows-error')).toContain('mergeWindows.windows.0.end: must be after start');
    expect(await page.$eval('#setting-mergeWindows-timeZone', (n) => n.getAttribute('aria-invalid'))).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('setting-mergeWindows-timeZone');
    expect((await svc.ok('getQueue', QUEUE)).body).toMatchObject({ mergeWindows: null, enqueueLabel: null, autoEnqueue: { enabled: false } });

    await typeInto('#setting-mergeWindows-timeZone', 'Europe/Berlin');
    await typeInto('.window .start', '09:00');
    await typeInto('.window .end', '17:00');
    await page.locator('button::-p-text(Add a window)').click();
    await page.waitForFunction(() => document.querySelectorAll('.window').length === 2);
    await page.locator('button::-p-text(Remove window 2)').click();
    await page.locator('button::-p-text(Save)').click();
    await queueViewShown();
    expect((await svc.ok('getQueue', QUEUE)).body).toMatchObject({
      mergeWindows: { timeZone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue'], start: '09:00', end: '17:00' }] },
      enqueueLabel: 'ready to merge',
      autoEnqueue: { enabled: true, authors: ['renovate[bot]', 'dependabot[bot]'] },
    });

    // Shown again as forms holding what was saved; saving unchanged sends nothing.
    await page.goto(`${base}/ui/#/settings?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('.window');
    expect(await page.$$eval('.window .days input:checked', (ns) => ns.map((n) => (n as HTMLInputElement).value))).toEqual(['mon', 'tue']);
    expect(await page.$eval('#setting-autoEnqueue-authors', (n) => (n as HTMLTextAreaElement).value)).toBe('renovate[bot]\ndependabot[bot]');
    await screenshot('queue-settings-forms');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator('button::-p-text(Save)').click();
    await waitForText('[role=alert]', 'Nothing changed');
    await svc.ok('updateQueue', { ...QUEUE, mergeWindows: null, enqueueLabel: null, autoEnqueue: { enabled: false } });
  });

  test('restart budgets are two numbers in the settings form, checked as the API checks them', async () => {
    await page.goto(`${base}/ui/#/settings?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.waitForSelector('#setting-restartBudgets-bystander');
    expect(await page.$eval('#setting-restartBudgets-bystander', (n) => (n as HTMLInputElement).value)).toBe('3');
    const typeInto = async (selector: string, value: string) => {
      await page.$eval(selector, (n) => ((n as HTMLInputElement).value = ''));
      await page.type(selector, value);
    };
    await typeInto('#setting-restartBudgets-bystander', '200');
    await page.locator('button::-p-text(Save)').click();
    await waitForText('#setting-restartBudgets-error', 'restartBudgets.bystander');
    expect(await page.$eval('#setting-restartBudgets-bystander', (n) => n.getAttribute('aria-invalid'))).toBe('true');
    expect((await svc.ok('getQueue', QUEUE)).body).toMatchObject({ restartBudgets: { bystander: 3, infrastructure: 2 } });
    await typeInto('#setting-restartBudgets-bystander', '5');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator('button::-p-text(Save)').click();
    await queueViewShown();
    expect((await svc.ok('getQueue', QUEUE)).body).toMatchObject({ restartBudgets: { bystander: 5, infrastructure: 2 } });
    await svc.ok('updateQueue', { ...QUEUE, restartBudgets: { bystander: 3, infrastructure: 2 } });
  });

  test("the repository's flaky and quarantined tests are listed, a page at a time", async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 12, minute)).toISOString();
    for (let i = 0; i < 25; i++) {
      const quarantined = i < 3;
      await svc.store.tests.upsertTestCase({
        testCaseId: `tc-${String(i).padStart(2, '0')}`, repoKey: REPO_PARAM, name: `test ${i}`, parent: 'suite', file: 'test/a.test.ts', classname: null, variant: null,
        codeowners: [], status: i === 24 ? 'healthy' : 'flaky', statusLastUpdatedAt: at(i), quarantineSetting: 'auto', quarantinedAt: quarantined ? at(i) : null,
      });
    }
    await svc.store.tests.upsertTestCase({
      testCaseId: 'tc-healthy', repoKey: REPO_PARAM, name: 'steady', parent: 'suite', file: null, classname: null, variant: null,
      codeowners: [], status: 'healthy', statusLastUpdatedAt: at(30), quarantineSetting: 'auto', quarantinedAt: null,
    });
    // The page is already on this queue (the test before): a reload reads the list again.
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await page.reload();
    await waitForText('#flaky-tests caption', '24 flaky, broken or quarantined · page 1 of 2');
    const names = () => page.$$eval('#flaky-tests tbody tr td:first-child', (cells) => cells.map((c) => c.textContent));
    const first = await names();
    expect(first).toHaveLength(20);
    expect(first[0]).toBe('suite › test 23');
    expect(first).not.toContain('suite › steady');
    await screenshot('queue-flaky-tests');
    await page.locator('button::-p-text(Next page)').click();
    await waitForText('#flaky-tests caption', 'page 2 of 2');
    expect(await names()).toEqual(['suite › test 3', 'suite › test 2', 'suite › test 1', 'suite › test 0']);
    expect(await page.$$eval('#flaky-tests tbody tr td:nth-child(3)', (cells) => cells.map((c) => c.textContent?.startsWith('since')))).toEqual([false, true, true, true]);
  });

  test('a batch is drawn as one run holding its PRs, and its bisection runs as prefixes of it', async () => {
    const batched = { repo: { ...REPO, name: 'batched' }, targetBranch: 'main' };
    await svc.ok('createQueue', { ...batched, mode: 'single', concurrency: 2, batch: true, batchingMinSize: 4, bisectionConcurrency: 3 });
    const batch: number[] = [];
    for (let i = 0; i < 4; i++) batch.push((await svc.openPull(batched.repo, `batched ${i + 1}`, { bad: i === 1, ciMinutes: 10 })).number);
    for (const n of batch) await svc.ok('submitPullRequest', { ...batched, pr: { number: n } });
    await svc.settle();
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: 'github.com/acme/batched', branch: 'main' })}`);
    await waitForText('.run-kind', 'Batch of 4', 3_000);
    const own = () => page.$$eval('.run', (cards) => cards.map((c) => ({
      title: c.querySelector('.run-kind')?.textContent ?? '',
      own: Array.from(c.querySelectorAll('.stack li.own a')).map((a) => Number((a.textContent ?? '').slice(1))),
    })));
    expect(await own()).toEqual([{ title: 'Batch of 4', own: batch }]);
    await screenshot('queue-batch');
    await svc.advanceMinutes(10);
    await waitForText('.run-kind', 'Bisection', 3_000);
    const cards = await own();
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) {
      expect(card.title).toBe(`Bisection · first ${card.own.length}`);
      expect(card.own).toEqual(batch.slice(0, card.own.length));
    }
    await screenshot('queue-bisection');
  }, 30_000);

  test('no serious or critical accessibility violations on any page', async () => {
    const pages = ['#/', `#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`, `#/settings?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`, `#/pull?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main', number: String(bad) })}`, `#/queue?${new URLSearchParams({ repo: 'github.com/acme/batched', branch: 'main' })}`];
    for (const hash of pages) {
      await page.goto(`${base}/ui/${hash}`);
      await page.waitForSelector('main h1');
      expect({ hash, violations: await seriousAxeViolations(page) }).toEqual({ hash, violations: [] });
    }
  });

  test('a token of another organization sees nothing of the queue', async () => {
    const context = await browser.createBrowserContext();
    const other = await context.newPage();
    await signIn(other, base, svc.otherOrgToken);
    expect(await other.$eval('main', (m) => m.textContent ?? '')).toContain('No queues yet');
    const status = await other.evaluate(
      (q) => fetch(`/ui/api/queue?${q}`).then((r) => r.status),
      new URLSearchParams({ repo: REPO_PARAM, branch: 'main' }).toString(),
    );
    expect(status).toBe(403);
    await other.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await other.waitForSelector('[role=alert]');
    expect(await other.$eval('main', (m) => m.textContent ?? '')).not.toContain('change 1');
    await context.close();
  });

  test("a queue whose fast-forward GitHub's branch protection refused says so, and what to do", async () => {
    const doc = (await svc.store.queues.getQueue('github.com/acme/widgets', 'main'))!;
    const message = 'Protected branch update failed for refs/heads/main.';
    expect(await svc.store.queues.commitQueue({ ...doc, fastForwardRefused: { at: doc.updatedAt, message }, version: doc.version + 1 }, doc.version)).toBe(true);
    await page.goto(`${base}/ui/#/queue?${new URLSearchParams({ repo: REPO_PARAM, branch: 'main' })}`);
    await waitForText('.notice', message);
    expect(await text('.notice')).toMatch(/merge through GitHub's merge API.*bypass list of the target branch's ruleset/);
    const now = (await svc.store.queues.getQueue('github.com/acme/widgets', 'main'))!;
    await svc.store.queues.commitQueue({ ...now, fastForwardRefused: null, version: now.version + 1 }, now.version);
  });

  test('sign out ends the session', async () => {
    await page.goto(`${base}/ui/`);
    await page.waitForSelector('#sign-out');
    await page.locator('#sign-out').click();
    await page.waitForSelector('#token');
    await page.reload();
    await page.waitForSelector('#token');
  });
});

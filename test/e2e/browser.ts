import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Debian's chromium (or CHROMIUM_PATH): nothing is downloaded. Null when none is installed. */
export function chromiumPath(): string | null {
  return CANDIDATES.find((p): p is string => !!p && existsSync(p)) ?? null;
}

/** Serves the app on a free port of 127.0.0.1: the server and its base URL. */
export async function listenLocally(app: { listen(port: number, host: string, ready: () => void): Server }): Promise<{ server: Server; base: string }> {
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  return { server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

/** Signs in on the web page with an API token, and waits for the list of queues. */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  await page.goto(`${base}/ui/`);
  await page.waitForSelector('#token');
  await page.type('#token', token);
  await page.keyboard.press('Enter');
  await page.waitForSelector('h1::-p-text(Queues)');
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/** The serious and critical accessibility violations axe-core finds on the page (`id (nodes)`). */
export async function seriousAxeViolations(p: Page): Promise<string[]> {
  const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await p.evaluate(axeSource);
  const result = (await p.evaluate(() => (globalThis as unknown as { axe: { run: () => Promise<unknown> } }).axe.run())) as {
    violations: { id: string; impact: string | null; nodes: unknown[] }[];
  };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`);
}

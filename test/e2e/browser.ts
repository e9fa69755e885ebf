import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Debian's chromium (or CHROMIUM_PATH): nothing is downloaded. Null when none is installed. */
export function chromiumPath(): string | null {
  return CANDIDATES.find((p): p is string => !!p && existsSync(p)) ?? null;
}

export function launchChromium(executablePath: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    // --no-sandbox: CI containers run as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

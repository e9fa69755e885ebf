import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../store/private-files.js';
import { ConfigError } from './config-error.js';

/** The file in the data dir where `mergeq setup github` keeps the App GitHub registered for it. */
export const STORED_APP_FILE = 'github-app.json';

/** What GitHub's manifest conversion returns that the service needs (or a person may: the client id and secret, the App's page). */
export interface StoredApp {
  appId: number;
  slug: string;
  htmlUrl: string;
  privateKey: string;
  webhookSecret: string;
  clientId: string | null;
  clientSecret: string | null;
  /** GitHub Enterprise Server's API URL; null for github.com. */
  apiUrl: string | null;
}

/** Writes the App's credentials readable by their owner only (0600, in a 0700 data dir); returns the file's path. */
export function writeStoredApp(dataDir: string, app: StoredApp): string {
  makePrivateDir(dataDir);
  const path = join(dataDir, STORED_APP_FILE);
  writeFileSync(path, `${JSON.stringify(app, null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  chmodSync(path, PRIVATE_FILE_MODE);
  return path;
}

/**
 * The environment with the stored App's variables added where the environment names no App: APP_ID
 * and PRIVATE_KEY when none of APP_ID, PRIVATE_KEY, PRIVATE_KEY_PATH is set, WEBHOOK_SECRET and
 * GITHUB_API_URL when unset. Variables set in the environment always win.
 */
export function withStoredApp(env: Record<string, string>, dataDir: string): Record<string, string> {
  if (env.APP_ID !== undefined || env.PRIVATE_KEY !== undefined || env.PRIVATE_KEY_PATH !== undefined) return env;
  const path = join(dataDir, STORED_APP_FILE);
  let app: StoredApp;
  try {
    app = JSON.parse(readFileSync(path, 'utf8')) as StoredApp;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return env;
    throw new ConfigError([`${path} (written by mergeq setup github) cannot be read: ${code ?? 'not JSON'}; run mergeq setup github again, or set APP_ID, PRIVATE_KEY and WEBHOOK_SECRET`]);
  }
  return {
    ...env,
    APP_ID: String(app.appId),
    PRIVATE_KEY: app.privateKey,
    ...(env.WEBHOOK_SECRET === undefined ? { WEBHOOK_SECRET: app.webhookSecret } : {}),
    ...(app.apiUrl && env.GITHUB_API_URL === undefined && env.GHE_HOST === undefined ? { GITHUB_API_URL: app.apiUrl } : {}),
  };
}

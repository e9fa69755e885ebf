import { pino } from 'pino';
import { Probot, ProbotOctokit } from 'probot';
import type { GitHostConfig } from '../../config/config.js';

/** GitHub's API when GITHUB_API_URL is not set. */
export const GITHUB_API = 'https://api.github.com';

export type GitHubAppConfig = Extract<GitHostConfig, { kind: 'github' }>;

/** A probot client of the App, for a few requests one at a time (no write spacing, no retries). */
export function appClient(config: GitHubAppConfig): Probot {
  return new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    ...(config.apiUrl ? { baseUrl: config.apiUrl } : {}),
    Octokit: ProbotOctokit.defaults((o: { throttle?: object; retry?: object }) => ({ ...o, throttle: { ...o.throttle, enabled: false }, retry: { ...o.retry, enabled: false } })),
    log: pino({ level: 'silent' }),
  });
}

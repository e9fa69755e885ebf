import { appClient, GITHUB_API, type GitHubAppConfig } from './app-client.js';
import { gitHubFault } from './github-fault.js';

/** How long `serve` waits for GitHub's answer before it names the fault. */
const REACH_TIMEOUT_MS = 10_000;

/** Null when GitHub answers `GET /app` with the App's credentials; else the fault and its fix (github-fault.ts). */
export async function gitHubUnreachable(config: GitHubAppConfig, timeoutMs = REACH_TIMEOUT_MS): Promise<string | null> {
  try {
    const app = await appClient(config).auth();
    await app.request('GET /app', { request: { signal: AbortSignal.timeout(timeoutMs) } });
    return null;
  } catch (err) {
    return gitHubFault(err, config.apiUrl ?? GITHUB_API);
  }
}

import { webPageUrl } from './commands/open.js';

/**
 * The one plain line `mergeq serve` writes for a person once it listens (the JSON logs are for
 * machines): where the service is, its web page, the next command, and how to try the queue without
 * GitHub when no git host is configured.
 */
export function startupLine(env: NodeJS.ProcessEnv, server: { host: string; port: number; gitHostKind: string }): string {
  const page = webPageUrl(env, server);
  const address = page.replace(/ui\/$/, '');
  const next = 'npx mergeq org create <org> --owner github.com/<owner>, then npx mergeq token create --org <org> for a token to sign in with';
  const sandboxHint =
    server.gitHostKind === 'none' ? ' No git host is configured: to watch PRs merge without GitHub, start it with MERGEQ_GITHOST=sandbox npm start.' : '';
  return `mergeq is running at ${address} (web page ${page}). Next: ${next}.${sandboxHint}`;
}

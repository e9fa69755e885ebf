import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { STORED_APP_FILE, writeStoredApp } from '../../config/stored-app.js';
import type { CliContext } from '../cli-context.js';
import { readAppManifest } from '../github-app/app-manifest.js';
import { runManifestFlow } from '../github-app/manifest-flow.js';
import { usageError } from '../usage-error.js';

interface SetupOptions {
  githubUrl: string;
  org?: string;
  name?: string;
  webhookUrl?: string;
  port: string;
  force?: boolean;
}

const HELP = `
Prints the address of a page on 127.0.0.1: open it in a browser signed in to GitHub, and GitHub's
"new App" form opens filled in from app.yml (permissions, events, webhook). Once you create the App,
GitHub sends the browser back to the page and the App's id, private key and webhook secret are
stored in the data dir (MERGEQ_DATA_DIR/${STORED_APP_FILE}, mode 0600), where \`mergeq serve\` finds
them. APP_ID, PRIVATE_KEY and WEBHOOK_SECRET in the environment still win.

Examples:
  $ mergeq setup github --webhook-url https://mergeq.example.com/api/github/webhooks
  $ mergeq setup github --org acme --name acme-mergeq
  $ mergeq setup github --github-url https://github.example.com    # GitHub Enterprise Server
`;

/** The App's webhook URL: --webhook-url, else WEBHOOK_PROXY_URL (a laptop), else MERGEQ_URL's endpoint, else app.yml's placeholder. */
function webhookUrlOf(options: SetupOptions, env: Record<string, string | undefined>, fallback: string | undefined): { url: string | undefined; placeholder: boolean } {
  const service = env.MERGEQ_URL?.trim().replace(/\/+$/, '');
  const url = options.webhookUrl ?? (env.WEBHOOK_PROXY_URL?.trim() || (service ? `${service}/api/github/webhooks` : undefined));
  return url ? { url, placeholder: false } : { url: fallback, placeholder: true };
}

export function registerSetupGitHub(program: Command, ctx: CliContext): void {
  program
    .command('setup')
    .description('Set up an integration: `setup github` registers the GitHub App from app.yml.')
    .command('github')
    .description("Register mergeq's GitHub App from app.yml with GitHub's manifest flow and store its id, key and secret in the data dir (0600).")
    .option('--github-url <url>', 'GitHub, or a GitHub Enterprise Server', 'https://github.com')
    .option('--org <org>', 'register the App for this organization (default: your own account)')
    .option('--name <name>', "the App's name, unique on GitHub (default: app.yml's)")
    .option('--webhook-url <url>', 'where GitHub delivers webhooks, https://<mergeq host>/api/github/webhooks (default: WEBHOOK_PROXY_URL, else MERGEQ_URL)')
    .option('--port <port>', 'port of the local page (0: any free one)', '0')
    .option('--force', `replace an App already stored in the data dir`)
    .addHelpText('after', HELP)
    .action(async (options: SetupOptions) => {
      const config = ctx.config();
      const stored = join(config.dataDir, STORED_APP_FILE);
      if (existsSync(stored) && !options.force) throw usageError(`a GitHub App is already stored in ${stored}; add --force to register another one in its place`);
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`--port takes a port number, got "${options.port}"`);
      const githubUrl = options.githubUrl.replace(/\/+$/, '');
      const manifest = readAppManifest();
      const hook = webhookUrlOf(options, ctx.io.env, manifest.hook_attributes?.url);
      if (hook.placeholder) ctx.io.stderr.write(`No --webhook-url, WEBHOOK_PROXY_URL or MERGEQ_URL: the App's webhook URL stays ${hook.url}; change it in the App's settings once mergeq has an address.\n`);
      const app = await runManifestFlow({
        manifest: { ...manifest, ...(options.name ? { name: options.name } : {}), ...(hook.url ? { hook_attributes: { url: hook.url, active: true } } : {}) },
        githubUrl,
        apiUrl: ctx.io.env.GITHUB_API_URL?.trim() || (githubUrl === 'https://github.com' ? 'https://api.github.com' : `${githubUrl}/api/v3`),
        ...(options.org ? { org: options.org } : {}),
        port,
        onListening: (page) => ctx.io.stderr.write(`Open ${page} in a browser signed in to ${githubUrl} to register the App (waiting for GitHub; Ctrl-C stops).\n`),
      });
      const path = writeStoredApp(config.dataDir, app);
      ctx.io.stdout.write(
        `GitHub App ${app.slug} (id ${app.appId}) stored in ${path} (mode 0600): its id, private key and webhook secret; nothing was written to .env. Keep that file out of git (the repository's .gitignore leaves out data/, .env and *.pem).\n` +
          `Next: install it on your repositories at ${app.htmlUrl}/installations/new, then start mergeq (npm start); check a repository with mergeq doctor --repo <owner>/<name>.\n`,
      );
      if (!app.webhookSecret) ctx.io.stderr.write('GitHub returned no webhook secret: set one in the App\'s settings and pass it as WEBHOOK_SECRET.\n');
    });
}

import type { Command } from 'commander';
import type { Clock } from '../domain/clock.js';
import { loadConfig } from '../config/load-config.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { registerDoctor } from './commands/doctor.js';
import { registerOpen } from './commands/open.js';
import { registerOrgCreate } from './commands/org-create.js';
import { registerOrgList } from './commands/org-list.js';
import { registerServe } from './commands/serve.js';
import { registerSetupGitHub } from './commands/setup-github.js';
import { registerTokenCreate } from './commands/token-create.js';
import { registerTokenList } from './commands/token-list.js';
import { registerTokenRevoke } from './commands/token-revoke.js';
import { registerWebhook } from './commands/webhook.js';
import { registerMcp } from './commands/mcp.js';
import { runProgram } from './program.js';
import { registerRemoteCommands } from './remote-commands.js';

const ENVIRONMENT_HELP = `
Environment (docs/configuration.md has the details):
  MERGEQ_PORT         port to listen on (3000); \`mergeq serve\` takes no --port: set this
  MERGEQ_HOST         address to listen on (0.0.0.0; 127.0.0.1 with the sandbox)
  MERGEQ_DATA_DIR     folder of the embedded SQLite store (./data)
  MONGODB_URI         use MongoDB instead of SQLite
  MERGEQ_GITHOST      github | sandbox | none (github when APP_ID and a key are set, else none)
  APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, WEBHOOK_SECRET: the GitHub App (docs/github-app.md)
  GITHUB_API_URL      GitHub Enterprise Server API URL (or GHE_HOST, GHE_PROTOCOL)
  WEBHOOK_PROXY_URL   a smee.io channel to receive webhooks through (a laptop)
  (.env in the working directory is read at start; the environment wins. \`mergeq setup github\` stores the App in the data dir)
  LOG_LEVEL           fatal | error | warn | info | debug | trace | silent (info)
  MERGEQ_URL, MERGEQ_TOKEN: the service and API token of \`mergeq queue\`, \`pr\` and \`test\` (--url, --token override; docs/cli.md)
  MERGEQ_RATE_LIMIT, MERGEQ_RATE_BURST   requests/s and burst per token and per address (50, 200; 0: off)
  MERGEQ_HEADERS_TIMEOUT_SECONDS, MERGEQ_BODY_TIMEOUT_SECONDS   slow clients get 408 (10, 60)
  MERGEQ_LARGE_BODIES_PER_TOKEN   bodies over 1 MiB in flight per token (2)
  MERGEQ_HISTORY_DAYS ended entries and runs are kept this many days (90)
  MERGEQ_GITHUB_WRITES_PER_MINUTE, MERGEQ_GITHUB_WRITES_PER_HOUR   the App's GitHub writes per installation (80, 500; 0: off)
  MERGEQ_QUEUE_LEASE_SECONDS   a replica's lease on a queue; a dead replica's queues wait this long (30)

Admin commands use the same store as the server, also while it runs.

Examples:
  $ mergeq setup github --webhook-url https://mergeq.example.com/api/github/webhooks
  $ mergeq serve
  $ mergeq doctor --repo acme/widgets
  $ mergeq open          # prints the web page's address, e.g. http://localhost:3000/ui/
  $ mergeq org create acme --owner github.com/acme
  $ TOKEN=$(mergeq token create --org acme --name ci)
  $ mergeq token list --org acme
  $ mergeq token revoke <token-id>
  $ mergeq org list
  $ SECRET=$(mergeq webhook create --org acme --url https://hooks.example.com/mergeq --events 'pull_request.*')
  $ mergeq webhook deliveries --org acme --status failed
  $ export MERGEQ_URL=https://mergeq.example.com MERGEQ_TOKEN=mq_...
  $ mergeq queue list
  $ mergeq queue create --repo acme/widgets --branch main --set concurrency=4
  $ mergeq pr submit 42 --repo acme/widgets --branch main
  $ mergeq pr status 42 --repo acme/widgets --branch main
  $ mergeq test --junit 'reports/**/*.xml' -- npm test
`;

/**
 * Runs one `mergeq` command line (without the `node mergeq` part) and returns its exit code. Tests
 * call it in-process; the bin (main.ts) passes the real process streams and environment.
 */
export function runCli(argv: string[], io: CliIo, options: { clock?: Clock } = {}): Promise<number> {
  return runProgram(
    {
      description:
        'mergeq: a merge queue service. Runs the service, administers its organizations and API tokens, works its queues over the REST API, and wraps test commands in CI to forgive quarantined flaky tests.',
      helpAfter: ENVIRONMENT_HELP,
      loadConfig: (io) => loadConfig(io.env, { cwd: io.cwd }),
      register,
    },
    argv,
    io,
    options,
  );
}

function register(program: Command, ctx: CliContext): void {
  registerServe(program, ctx);
  registerOpen(program, ctx);

  const org = program.command('org').description('Administer organizations: `org create`, `org list`.');
  registerOrgCreate(org, ctx);
  registerOrgList(org, ctx);

  const token = program
    .command('token')
    .description("Administer an organization's API tokens: `token create`, `token list`, `token revoke`.");
  registerTokenCreate(token, ctx);
  registerTokenList(token, ctx);
  registerTokenRevoke(token, ctx);

  registerWebhook(program, ctx);
  registerDoctor(program, ctx);
  registerSetupGitHub(program, ctx);
  registerRemoteCommands(program, ctx);
  registerMcp(program, ctx);
}

import { Option, type Command } from 'commander';
import type { Logger } from 'pino';
import { EXIT } from '../exit-codes.js';
import { createLogger } from '../../server/logger.js';
import type { CliContext } from '../cli-context.js';
import { startupLine } from '../startup-line.js';
import type { GitHubAppConfig } from '../github-app/app-client.js';

export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description(
      'Run the merge queue service: the REST API under /v1 on MERGEQ_HOST:MERGEQ_PORT, with the store and ' +
        'git host chosen by the environment (listed by `mergeq --help`). Logs JSON lines to stdout; ' +
        'once listening, writes one plain line to stderr with the address, the web page and the next command ' +
        '(in GitHub mode, one more, naming the fault, when GitHub cannot be reached). ' +
        'Limits (rate, timeouts, large bodies, history) come from MERGEQ_* variables; see docs/configuration.md. ' +
        'Stops cleanly on SIGTERM or SIGINT.',
    )
    // The port is configuration like the rest (MERGEQ_PORT); a --port flag says so instead of "unknown option".
    .addOption(new Option('--port <port>').hideHelp())
    .action(async (options: { port?: string }) => {
      if (options.port !== undefined) {
        ctx.io.stderr.write(`mergeq serve takes its port from the environment: MERGEQ_PORT=${options.port} mergeq serve\n`);
        ctx.exitWith(EXIT.usage);
        return;
      }
      const config = ctx.config();
      const logger = createLogger(config.logLevel, ctx.io.stdout);
      // Loaded here so the admin commands do not load the HTTP stack and the engine.
      const [{ startServer }, { stopOnSignals }] = await Promise.all([
        import('../../server/start-server.js'),
        import('../../server/shutdown.js'),
      ]);
      const server = await startServer(config, { logger });
      // On stderr: stdout stays JSON lines for whatever collects the logs.
      ctx.io.stderr.write(`${startupLine(ctx.io.env, server)}\n`);
      if (config.gitHost.kind === 'github') warnWhenGitHubUnreachable(config.gitHost, ctx, logger);
      await stopOnSignals(server, logger);
    });
}

/** Once, at start: the service runs either way, but nothing can be read, tested or merged until GitHub answers. */
function warnWhenGitHubUnreachable(config: GitHubAppConfig, ctx: CliContext, logger: Logger): void {
  void import('../github-app/github-reachable.js').then(async ({ gitHubUnreachable }) => {
    const fault = await gitHubUnreachable(config);
    if (!fault) return;
    logger.warn({ fault }, 'GitHub cannot be reached');
    ctx.io.stderr.write(`mergeq: warning: GitHub cannot be reached, so no pull request can be read, tested or merged until it can: ${fault}. \`mergeq doctor --repo <owner>/<name>\` checks the whole setup.\n`);
  });
}

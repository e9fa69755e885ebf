import type { Command } from 'commander';
import type { CliContext } from '../cli-context.js';

/** The web page's address: under MERGEQ_URL when set (the service as clients reach it), else the local listener. */
export function webPageUrl(env: NodeJS.ProcessEnv, config: { host: string; port: number }): string {
  const configured = env.MERGEQ_URL?.trim();
  if (configured) return new URL('ui/', configured.endsWith('/') ? configured : `${configured}/`).toString();
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}/ui/`;
}

export function registerOpen(program: Command, ctx: CliContext): void {
  program
    .command('open')
    .description(
      "Print the address of the service's web page (/ui/): under MERGEQ_URL when set, else on MERGEQ_HOST:MERGEQ_PORT. " +
        'Prints it only: open it in a browser and sign in with an API token.',
    )
    .action(() => {
      ctx.io.stdout.write(`${webPageUrl(ctx.io.env, ctx.config())}\n`);
    });
}

import type { Command } from 'commander';
import { DEFAULT_TOKEN_NAME, OrgService } from '../../service/access/org-service.js';
import type { CliContext } from '../cli-context.js';
import { withStore } from '../with-store.js';

export function registerTokenCreate(token: Command, ctx: CliContext): void {
  token
    .command('create')
    .description(
      'Create an API token for an organization. Prints only the token on stdout (everything else goes ' +
        'to stderr), so it can be captured: TOKEN=$(mergeq token create --org acme). It is shown once; ' +
        'only its hash is stored.',
    )
    .requiredOption('--org <slug>', 'the organization the token acts for')
    .option('--name <label>', 'a label to recognise it by in `token list`, e.g. ci', DEFAULT_TOKEN_NAME)
    .action(async (options: { org: string; name: string }) => {
      await withStore(ctx.config(), ctx.io, async (store) => {
        const { token: secret, record } = await new OrgService(store, ctx.clock).createToken(options.org, options.name);
        ctx.io.stdout.write(`${secret}\n`);
        ctx.io.stderr.write(
          `Created token ${record.id} ("${record.name}") for organization ${options.org}. ` +
            'Store it now: it cannot be shown again. Send it in the x-api-token header.\n',
        );
      });
    });
}

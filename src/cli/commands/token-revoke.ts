import type { Command } from 'commander';
import { OrgService } from '../../service/access/org-service.js';
import type { CliContext } from '../cli-context.js';
import { withStore } from '../with-store.js';

export function registerTokenRevoke(token: Command, ctx: CliContext): void {
  token
    .command('revoke')
    .description('Revoke an API token by its id (see `token list`). Requests with it are refused from then on (401). Revoking twice is harmless.')
    .argument('<token-id>', 'the id of the token, as `token list` shows it')
    .action(async (tokenId: string) => {
      await withStore(ctx.config(), ctx.io, async (store) => {
        const { record, alreadyRevoked } = await new OrgService(store, ctx.clock).revokeToken(tokenId);
        ctx.io.stdout.write(
          alreadyRevoked
            ? `Token ${record.id} ("${record.name}") was already revoked at ${record.revokedAt}\n`
            : `Revoked token ${record.id} ("${record.name}")\n`,
        );
      });
    });
}

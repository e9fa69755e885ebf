import type { Command } from 'commander';
import type { ApiToken } from '../../domain/org.js';
import { OrgService } from '../../service/access/org-service.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../format-table.js';
import { withStore } from '../with-store.js';

/** What `token list` shows of a token: never the token, never its hash. */
function publicView(t: ApiToken) {
  return { id: t.id, name: t.name, prefix: t.prefix, createdAt: t.createdAt, lastUsedAt: t.lastUsedAt, revokedAt: t.revokedAt };
}

export function registerTokenList(token: Command, ctx: CliContext): void {
  token
    .command('list')
    .description("List an organization's API tokens: id, name, prefix, created, last used, revoked. Never shows a token or its hash.")
    .requiredOption('--org <slug>', 'the organization')
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { org: string; json?: boolean }) => {
      await withStore(ctx.config(), ctx.io, async (store) => {
        const tokens = (await new OrgService(store, ctx.clock).listTokens(options.org)).map(publicView);
        if (options.json) {
          ctx.io.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
          return;
        }
        if (tokens.length === 0) {
          ctx.io.stderr.write(`Organization ${options.org} has no tokens. Create one with: mergeq token create --org ${options.org}\n`);
          return;
        }
        const rows = tokens.map((t) => [t.id, t.name, `${t.prefix}…`, t.createdAt, t.lastUsedAt ?? '-', t.revokedAt ?? '-']);
        ctx.io.stdout.write(formatTable(['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'], rows));
      });
    });
}

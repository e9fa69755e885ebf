import type { Command } from 'commander';
import { OrgService } from '../../service/access/org-service.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../format-table.js';
import { withStore } from '../with-store.js';

export function registerOrgList(org: Command, ctx: CliContext): void {
  org
    .command('list')
    .description("List the service's organizations: slug, the repository owners each owns, created. Reads the store, like `org create`.")
    .option('--json', 'print a JSON array instead of a table')
    .action(async (options: { json?: boolean }) => {
      await withStore(ctx.config(), ctx.io, async (store) => {
        const orgs = await new OrgService(store, ctx.clock).listOrgs();
        if (options.json) {
          ctx.io.stdout.write(`${JSON.stringify(orgs, null, 2)}\n`);
          return;
        }
        if (orgs.length === 0) {
          ctx.io.stderr.write('No organizations yet. Create one with: mergeq org create acme --owner github.com/acme\n');
          return;
        }
        const rows = orgs.map((o) => [o.slug, o.owners.join(', '), o.createdAt]);
        ctx.io.stdout.write(formatTable(['SLUG', 'OWNERS', 'CREATED'], rows));
      });
    });
}

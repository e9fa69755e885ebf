import type { Command } from 'commander';
import { OrgService } from '../../service/access/org-service.js';
import type { CliContext } from '../cli-context.js';
import { withStore } from '../with-store.js';

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerOrgCreate(org: Command, ctx: CliContext): void {
  org
    .command('create')
    .description(
      'Create an organization. Its API tokens may act on the repositories of the owners it owns; ' +
        'an owner belongs to one organization only.',
    )
    .argument('<slug>', 'short name: lower-case letters, digits and dashes, e.g. acme')
    .requiredOption('--owner <host/owner>', 'a repository owner it owns, e.g. github.com/acme (repeat for several)', collect)
    .addHelpText('after', '\nExample:\n  $ mergeq org create acme --owner github.com/acme --owner github.com/acme-labs\n')
    .action(async (slug: string, options: { owner: string[] }) => {
      await withStore(ctx.config(), ctx.io, async (store) => {
        const created = await new OrgService(store, ctx.clock).createOrg(slug, options.owner);
        ctx.io.stdout.write(`Created organization ${created.slug} (id ${created.id}), owning ${created.owners.join(', ')}\n`);
      });
    });
}

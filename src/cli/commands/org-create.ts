import type { Command } from 'commander';
import { OrgService } from '../../service/access/org-service.js';
import { ServiceError } from '../../service/errors.js';
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
        const orgs = new OrgService(store, ctx.clock);
        try {
          const created = await orgs.createOrg(slug, options.owner);
          ctx.io.stdout.write(`Created organization ${created.slug} (id ${created.id}), owning ${created.owners.join(', ')}\n`);
        } catch (err) {
          if (!(err instanceof ServiceError && err.code === 'org_exists')) throw err;
          const existing = await orgs.getOrg(slug);
          const asked = options.owner.map((o) => o.toLowerCase());
          if (!asked.every((o) => existing.owners.includes(o))) {
            throw new ServiceError(409, 'org_exists', 'Organization exists', `organization "${slug}" already exists, owning ${existing.owners.join(', ')}; choose another slug, or use it as it is (mergeq token create --org ${slug})`);
          }
          // Following the README twice on one machine (quick start, then the sandbox) is no error.
          ctx.io.stdout.write(`Organization ${existing.slug} (id ${existing.id}) already exists, owning ${existing.owners.join(', ')}; nothing to do. Next: mergeq token create --org ${existing.slug}\n`);
        }
      });
    });
}

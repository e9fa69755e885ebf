import type { Command } from 'commander';
import type { QueueTemplateRecord } from '../../service/queue/queue-template-service.js';
import { addApiOptions, ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../format-table.js';
import { parseRepo } from './queue-ref.js';

type TemplateOptions = ApiOptions & { repo: string; pattern: string; set?: string[] };

/** `mergeq queue template list|create|update|delete`: queue templates for branch patterns (docs/queue-patterns.md). */
export function registerQueueTemplate(
  queue: Command,
  ctx: CliContext,
  tools: {
    parseSettings: (pairs: string[]) => Record<string, unknown>;
    collect: (value: string, previous: string[] | undefined) => string[];
    settingsHelp: string;
    print: (options: ApiOptions, answer: unknown, text: () => string) => void;
  },
): void {
  const template = queue
    .command('template')
    .description('Templates of the queues of the branches matching a pattern (release/*): each such queue is created at the first submit to its branch.');
  const { print } = tools;
  const withRef = (cmd: Command) =>
    addApiOptions(cmd)
      .requiredOption('--repo <repo>', 'the repository: owner/name on github.com, or host/owner/name')
      .requiredOption('--pattern <glob>', 'the branch pattern: * within one path segment (release/*), ** across (release/**)');
  const refOf = (o: TemplateOptions) => ({ repo: parseRepo(o.repo), pattern: o.pattern });

  addApiOptions(template.command('list').description("List the organization's queue templates."))
    .option('--repo <repo>', 'only the templates of this repository')
    .action(async (options: ApiOptions & { repo?: string }) => {
      const answer = await ApiClient.from(ctx, options).call<{ templates: QueueTemplateRecord[] }>('listQueueTemplates', options.repo ? { repo: parseRepo(options.repo) } : {});
      if (answer.templates.length === 0 && !options.json) {
        ctx.io.stderr.write('No queue templates yet. Create one with: mergeq queue template create --repo owner/name --pattern "release/*"\n');
        return;
      }
      print(options, answer.templates, () =>
        formatTable(
          ['REPOSITORY', 'PATTERN', 'SETTINGS', 'SOURCE'],
          answer.templates.map((t) => [`${t.repo.owner}/${t.repo.name}`, t.pattern, Object.entries(t.settings).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ') || '(defaults)', t.settingsSource]),
        ),
      );
    });

  for (const [name, operation, verb] of [
    ['create', 'createQueueTemplate', 'Create a queue template for a branch pattern'],
    ['update', 'updateQueueTemplate', "Change a template's settings; settings not given stay unchanged (queues made from it keep theirs)"],
  ] as const) {
    withRef(template.command(name).description(`${verb}.`))
      .option('--set <name=value>', 'a setting (repeat for several)', tools.collect)
      .addHelpText('after', tools.settingsHelp)
      .action(async (options: TemplateOptions) => {
        const record = await ApiClient.from(ctx, options).call<QueueTemplateRecord>(operation, { ...tools.parseSettings(options.set ?? []), ...refOf(options) });
        print(options, record, () => `${name === 'create' ? 'Created' : 'Updated'} queue template ${record.pattern} of ${record.repo.owner}/${record.repo.name}\n`);
      });
  }

  withRef(template.command('delete').description('Delete a queue template; the queues made from it stay.')).action(async (options: TemplateOptions) => {
    const answer = await ApiClient.from(ctx, options).call<{ deleted: boolean }>('deleteQueueTemplate', refOf(options));
    print(options, answer, () => (answer.deleted ? `Deleted queue template ${options.pattern}\n` : `No queue template ${options.pattern}: nothing deleted\n`));
  });
}

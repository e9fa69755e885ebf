import type { Command } from 'commander';
import type { PageJson } from '../../service/pages.js';
import type { ListedQueue } from '../../service/queue/queue-listing.js';
import type { QueueRecord } from '../../records/queue-record.js';
import { addApiOptions, ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { usageError } from '../usage-error.js';
import { addQueueRefOptions, describeQueue, parseRepo, queueRefOf, type QueueRefOptions } from './queue-ref.js';
import { queueListText, queueText } from './queue-text.js';
import { registerQueueFreeze } from './queue-freeze.js';
import { registerQueueTemplate } from './queue-template.js';

type RefOptions = QueueRefOptions & ApiOptions;
type SettingsOptions = RefOptions & { set?: string[] };

const LIST_PAGE_SIZE = 100;

const SETTINGS_HELP = `
Settings are the fields of createQueue and updateQueue (docs/api.md): mode, concurrency,
testingTimeoutMinutes, batch, batchingMinSize, flakeRetries, requiredStatuses, mergeMethod,
restartBudgets, stormRuns, stormMinutes, stormPause, ...
A misspelled name is refused, naming the setting meant. Values: numbers, true/false, null, a word,
or JSON (requiredStatuses='["ci/test"]').

Examples:
  $ mergeq queue create --repo acme/widgets --branch main --set concurrency=4 --set batch=true
  $ mergeq queue update --repo acme/widgets --branch main --set 'requiredStatuses=["ci/test"]'
  $ mergeq queue update --repo acme/widgets --branch main --set 'restartBudgets={"bystander":5,"infrastructure":2}' --set stormPause=true
`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `name=value` pairs as JSON fields: `4` → 4, `true` → true, `null` → null, `[...]`/`{...}` parsed, anything else a string. */
export function parseSettings(pairs: string[]): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usageError(`--set takes name=value, got "${pair}"`);
    const raw = pair.slice(eq + 1).trim();
    let value: unknown = raw;
    if (/^(-?\d+(\.\d+)?|true|false|null)$/.test(raw) || /^[[{"]/.test(raw)) {
      try {
        value = JSON.parse(raw);
      } catch {
        throw usageError(`--set ${pair.slice(0, eq)}: "${raw}" is not valid JSON`);
      }
    }
    settings[pair.slice(0, eq).trim()] = value;
  }
  return settings;
}

export function registerQueue(program: Command, ctx: CliContext): void {
  const queue = program
    .command('queue')
    .description('Work the merge queues over the REST API: `queue list`, `show`, `create`, `update`, `pause`, `resume`, `drain`, `freeze`, `unfreeze`, `delete`, `template`.');

  const print = (options: ApiOptions, answer: unknown, text: () => string) =>
    ctx.io.stdout.write(options.json ? `${JSON.stringify(answer, null, 2)}\n` : text());
  registerQueueTemplate(queue, ctx, { parseSettings, collect, settingsHelp: SETTINGS_HELP, print });

  addApiOptions(queue.command('list').description("List the organization's queues: state, mode, pull requests, runs, merged and failed in the last hour."))
    .option('--repo <repo>', 'only the queues of this repository: owner/name on github.com, or host/owner/name')
    .action(async (options: ApiOptions & { repo?: string }) => {
      const api = ApiClient.from(ctx, options);
      const queues: ListedQueue[] = [];
      let pageToken = '';
      do {
        const body = { ...(options.repo ? { repo: parseRepo(options.repo) } : {}), page_query: { page_size: LIST_PAGE_SIZE, page_token: pageToken } };
        const answer = await api.call<{ queues: ListedQueue[]; page: PageJson }>('listQueues', body);
        queues.push(...answer.queues);
        pageToken = answer.page.next_page_token;
      } while (pageToken);
      if (queues.length === 0 && !options.json) {
        ctx.io.stderr.write('No queues yet. Create one with: mergeq queue create --repo owner/name --branch main\n');
        return;
      }
      print(options, queues, () => queueListText(queues));
    });

  addApiOptions(addQueueRefOptions(queue.command('show').description('Show a queue: its state, every setting, and its pull requests in queue order.'))).action(
    async (options: RefOptions) => {
      const record = await ApiClient.from(ctx, options).call<QueueRecord>('getQueue', queueRefOf(options));
      print(options, record, () => queueText(record));
    },
  );

  for (const [name, operation, verb] of [
    ['create', 'createQueue', 'Create a queue for a branch'],
    ['update', 'updateQueue', "Change a queue's settings; settings not given stay unchanged"],
  ] as const) {
    addApiOptions(addQueueRefOptions(queue.command(name).description(`${verb}.`)))
      .option('--set <name=value>', 'a setting (repeat for several)', collect)
      .addHelpText('after', SETTINGS_HELP)
      .action(async (options: SettingsOptions) => {
        const ref = queueRefOf(options);
        const record = await ApiClient.from(ctx, options).call<QueueRecord>(operation, { ...parseSettings(options.set ?? []), ...ref });
        print(options, record, () => `${name === 'create' ? 'Created' : 'Updated'} queue ${describeQueue(ref)}: ${record.state}, ${record.mode}, concurrency ${record.concurrency}\n`);
      });
  }

  for (const [name, state, verb] of [
    ['pause', 'paused', 'Pause a queue: it still takes pull requests, but starts no test runs and merges nothing'],
    ['resume', 'running', 'Resume a paused or draining queue'],
    ['drain', 'draining', 'Drain a queue: it refuses new pull requests, lets the runs in flight finish and merge, then pauses'],
  ] as const) {
    addApiOptions(addQueueRefOptions(queue.command(name).description(`${verb}.`))).action(async (options: RefOptions) => {
      const ref = queueRefOf(options);
      const record = await ApiClient.from(ctx, options).call<QueueRecord>('updateQueue', { ...ref, state });
      print(options, record, () => `Queue ${describeQueue(ref)} is ${record.state}\n`);
    });
  }

  registerQueueFreeze(queue, ctx, print);

  addApiOptions(addQueueRefOptions(queue.command('delete').description('Delete an empty queue (cancel its pull requests first).'))).action(
    async (options: RefOptions) => {
      const ref = queueRefOf(options);
      const answer = await ApiClient.from(ctx, options).call<{ deleted: boolean }>('deleteQueue', ref);
      print(options, answer, () => (answer.deleted ? `Deleted queue ${describeQueue(ref)}\n` : `No queue for ${describeQueue(ref)}: nothing deleted\n`));
    },
  );
}

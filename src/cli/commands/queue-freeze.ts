import type { Command } from 'commander';
import type { QueueRecord } from '../../records/queue-record.js';
import { addApiOptions, ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { usageError } from '../usage-error.js';
import { addQueueRefOptions, describeQueue, queueRefOf, type QueueRefOptions } from './queue-ref.js';

type RefOptions = QueueRefOptions & ApiOptions;
type FreezeOptions = RefOptions & { reason: string; until?: string; allow?: string[] };

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function prNumber(value: string): number {
  const n = Number(value.replace(/^#/, ''));
  if (!Number.isInteger(n) || n < 1) throw usageError(`--allow takes a pull request number, got "${value}"`);
  return n;
}

/** `mergeq queue freeze|unfreeze` (docs/queue-policies.md): freezeQueue and unfreezeQueue over the REST API. */
export function registerQueueFreeze(queue: Command, ctx: CliContext, print: (options: ApiOptions, answer: unknown, text: () => string) => void): void {
  addApiOptions(
    addQueueRefOptions(queue.command('freeze').description('Freeze a queue: it keeps testing but merges nothing (urgent pull requests excepted) until unfrozen.')),
  )
    .requiredOption('--reason <text>', 'why; shown on the pull requests it holds')
    .option('--until <time>', 'when the freeze ends by itself (ISO 8601, e.g. 2026-12-24T18:00:00Z)')
    .option('--allow <pr>', 'a pull request that may merge anyway (repeat for several)', collect)
    .action(async (options: FreezeOptions) => {
      const ref = queueRefOf(options);
      const body = {
        ...ref,
        reason: options.reason,
        ...(options.until ? { endsAt: options.until } : {}),
        ...(options.allow ? { allowPullRequests: options.allow.map(prNumber) } : {}),
      };
      const record = await ApiClient.from(ctx, options).call<QueueRecord>('freezeQueue', body);
      const until = record.freeze?.endsAt ? ` until ${record.freeze.endsAt}` : ' until unfrozen';
      print(options, record, () => `Queue ${describeQueue(ref)} is frozen${until}: ${options.reason}\n`);
    });

  addApiOptions(addQueueRefOptions(queue.command('unfreeze').description('Lift the freeze of a queue: the pull requests it held merge in queue order.'))).action(
    async (options: RefOptions) => {
      const ref = queueRefOf(options);
      const record = await ApiClient.from(ctx, options).call<QueueRecord>('unfreezeQueue', ref);
      print(options, record, () => `Queue ${describeQueue(ref)} is not frozen\n`);
    },
  );
}

import type { Command } from 'commander';
import type { SubmittedPullRequestRecord } from '../../records/pull-request-record.js';
import { addApiOptions, ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { usageError } from '../usage-error.js';
import { addQueueRefOptions, describeQueue, queueRefOf, type QueueRefOptions } from './queue-ref.js';
import { pullRequestText } from './queue-text.js';

type PrOptions = QueueRefOptions & ApiOptions;

function prNumber(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw usageError(`the pull request number must be a positive integer, got "${value}"`);
  return Number(value);
}

export function registerPr(program: Command, ctx: CliContext): void {
  const pr = program
    .command('pr')
    .description('Put pull requests in a queue and follow them over the REST API: `pr submit`, `cancel`, `restart`, `status`.');

  const command = (name: string, description: string) =>
    addApiOptions(addQueueRefOptions(pr.command(name).description(description).argument('<number>', 'the pull request number', prNumber)));

  const run = async (operation: string, number: number, options: PrOptions, extra: Record<string, unknown> = {}) => {
    const ref = queueRefOf(options);
    const record = await ApiClient.from(ctx, options).call<SubmittedPullRequestRecord>(operation, { ...ref, pr: { number }, ...extra });
    ctx.io.stdout.write(options.json ? `${JSON.stringify(record, null, 2)}\n` : `${describeQueue(ref)}: ${pullRequestText(record)}`);
  };

  command('submit', 'Submit a pull request to the queue; submitting it again changes its priority.')
    .option('--priority <priority>', 'urgent, high, medium (the default) or low, or 0-255 (0 most urgent)')
    .option('--no-batch', 'never test it in a batch with others')
    .option('--with-stack', 'also queue the PRs of its stack below it, as one unit (docs/stacks.md)')
    .addHelpText('after', '\nExamples:\n  $ mergeq pr submit 42 --repo acme/widgets --branch main --priority high\n  $ mergeq pr submit 44 --repo acme/widgets --branch main --with-stack   # 44 on 43 on 42 on main\n')
    .action((number: number, options: PrOptions & { priority?: string; batch: boolean; withStack?: boolean }) =>
      run('submitPullRequest', number, options, {
        ...(options.priority ? { priority: options.priority } : {}),
        ...(options.batch ? {} : { noBatch: true }),
        ...(options.withStack ? { stack: { below: true } } : {}),
      }),
    );
  command('cancel', 'Take a pull request out of the queue.').action((number: number, options: PrOptions) => run('cancelPullRequest', number, options));
  command('restart', 'Re-run the tests of a pull request that is testing, passed, or pending failure, without moving it.').action(
    (number: number, options: PrOptions) => run('restartTestsOnPullRequest', number, options),
  );
  command('status', 'Show where a pull request is: its state, position, stack, why, and its history.').action((number: number, options: PrOptions) =>
    run('getSubmittedPullRequest', number, options),
  );
}

import type { Command } from 'commander';
import { addApiOptions, ApiClient, type ApiOptions } from '../api-client.js';
import type { CliContext } from '../cli-context.js';
import { usageError } from '../usage-error.js';
import { parseRepo } from './queue-ref.js';

type QuarantineOptions = ApiOptions & { repo?: string; reason?: string; auto?: boolean };

interface TestCaseAnswer {
  test_case_id: string;
  name: string;
  file: string | null;
  classname: string | null;
  status: string;
  quarantine_setting: string;
  quarantined: boolean;
}

const HELP = `
The test case id is what \`mergeq test\` prints beside each failed, forgiven or newly flaky test
(\`[id 3f5c…]\`), and what the web page's flaky tests list shows.

Examples:
  $ mergeq test quarantine 3f5c2a4e-… --repo acme/shop --reason "times out on CI, #1234"
  $ mergeq test release 3f5c2a4e-… --repo acme/shop
  $ mergeq test release 3f5c2a4e-… --repo acme/shop --auto    # as detection says again
`;

/** `mergeq test quarantine|release <id>`: setQuarantineSetting over the REST API (docs/flaky-tests.md). */
export function registerTestQuarantine(test: Command, ctx: CliContext): void {
  const command = (name: string, description: string) =>
    addApiOptions(
      test
        .command(name)
        .description(description)
        .argument('<test-case-id>', 'the test case id `mergeq test` prints')
        // Checked in the action, not by commander, which hands --repo to `test` (see below).
        .option('--repo <repo>', 'the repository: owner/name on github.com, or host/owner/name (required)')
        .option('--reason <text>', 'why; recorded in the test case history'),
    ).addHelpText('after', HELP);

  const run = async (id: string, options: QuarantineOptions, setting: 'always' | 'never' | 'auto') => {
    if (!options.repo) throw usageError('--repo <repo> is required: owner/name on github.com, or host/owner/name');
    const repo = parseRepo(options.repo);
    const answer = await ApiClient.from(ctx, options).call<TestCaseAnswer>('flaky-tests/setQuarantineSetting', {
      repo,
      testCaseId: id,
      setting,
      ...(options.reason ? { reason: options.reason } : {}),
    });
    if (options.json) {
      ctx.io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      return;
    }
    const name = [answer.file, answer.classname === answer.name ? null : answer.classname, answer.name].filter(Boolean).join(' › ');
    const state = answer.quarantined ? 'quarantined: its failures no longer fail CI' : 'not quarantined: its failures fail CI';
    ctx.io.stdout.write(`${name} [id ${answer.test_case_id}] of ${repo.host}/${repo.owner}/${repo.name}: ${state} (setting ${answer.quarantine_setting}, status ${answer.status})\n`);
  };

  // Commander hands options named by both `test` and its subcommand (--repo) to `test`: read them merged.
  command('quarantine', 'Quarantine a test by hand: CI forgives its failures until it is released.').action((id: string, _o: unknown, cmd: Command) =>
    run(id, cmd.optsWithGlobals<QuarantineOptions>(), 'always'),
  );
  command('release', 'Release a test from quarantine: its failures fail CI again (--auto: as flaky-test detection says).')
    .option('--auto', 'hand the test back to detection instead of never quarantining it')
    .action((id: string, _o: unknown, cmd: Command) => {
      const options = cmd.optsWithGlobals<QuarantineOptions>();
      return run(id, options, options.auto ? 'auto' : 'never');
    });
}

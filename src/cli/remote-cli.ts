import type { Clock } from '../domain/clock.js';
import type { CliIo } from './cli-io.js';
import { runProgram } from './program.js';
import { registerRemoteCommands } from './remote-commands.js';

const REMOTE_HELP = `
This is the single-file mergeq CLI the service serves at /cli/mergeq.mjs: it needs Node 20 or later
and nothing else. It talks to the service over HTTP; \`mergeq serve\` and the admin commands are in the
full CLI (npm ci in a clone of mergeq).

Environment: MERGEQ_URL (the service), MERGEQ_TOKEN (an API token), also read from .env in the
working folder (the environment wins); --url and --token override them; --verbose says which it used.

Examples:
  $ curl -fsS "$MERGEQ_URL/cli/mergeq.mjs" -o mergeq.mjs
  $ node mergeq.mjs test --junit 'reports/**/*.xml' -- npm test
  $ node mergeq.mjs queue list
  $ node mergeq.mjs pr status 42 --repo acme/widgets --branch main
`;

/** The CLI of the single file (src/cli/bundle-main.ts): the commands that only need the service's address and a token. */
export function runRemoteCli(argv: string[], io: CliIo, options: { clock?: Clock } = {}): Promise<number> {
  return runProgram(
    {
      description: 'mergeq (single-file CLI): works the merge queues over the REST API and wraps test commands in CI to forgive quarantined flaky tests.',
      helpAfter: REMOTE_HELP,
      loadConfig: () => {
        throw new Error('the single-file CLI has no service configuration');
      },
      register: registerRemoteCommands,
    },
    argv,
    io,
    options,
  );
}

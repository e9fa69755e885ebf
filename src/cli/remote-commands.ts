import type { Command } from 'commander';
import type { CliContext } from './cli-context.js';
import { registerPr } from './commands/pr.js';
import { registerQueue } from './commands/queue.js';
import { registerTest } from './commands/test.js';

/**
 * The commands that only talk to a running service over HTTP (MERGEQ_URL, MERGEQ_TOKEN): in the full
 * CLI, and all of the single file the service serves at /cli/mergeq.mjs for CI.
 */
export function registerRemoteCommands(program: Command, ctx: CliContext): void {
  registerQueue(program, ctx);
  registerPr(program, ctx);
  registerTest(program, ctx);
}

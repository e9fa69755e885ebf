import { Command } from 'commander';
import { systemClock, type Clock } from '../domain/clock.js';
import type { Config } from '../config/config.js';
import type { CliContext } from './cli-context.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './exit-codes.js';
import { packageVersion } from './package-version.js';
import { reportError } from './report-error.js';
import { sayWhereSettingsCameFrom } from './settings-origin.js';

export interface ProgramDef {
  description: string;
  helpAfter: string;
  /** Reads the service's configuration; the single-file CLI, which never opens a store, has none. */
  loadConfig(io: CliIo): Config;
  register(program: Command, ctx: CliContext): void;
}

/** Runs one command line (without the `node mergeq` part) of `def` and returns its exit code. */
export async function runProgram(def: ProgramDef, argv: string[], io: CliIo, options: { clock?: Clock } = {}): Promise<number> {
  let config: Config | undefined;
  let exitCode: number = EXIT.ok;
  const ctx: CliContext = {
    io,
    clock: options.clock ?? systemClock,
    config: () => (config ??= def.loadConfig(io)),
    exitWith: (code) => (exitCode = code),
  };
  const program = new Command('mergeq')
    .description(def.description)
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void ctx.io.stdout.write(text),
      writeErr: (text) => void ctx.io.stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage)')
    .option('--verbose', 'say where MERGEQ_URL and MERGEQ_TOKEN came from (a flag, the environment or .env)')
    .addHelpText('after', def.helpAfter)
    .hook('preAction', (_program, action) => {
      if (program.opts<{ verbose?: boolean }>().verbose) sayWhereSettingsCameFrom(io, action.opts());
    });
  def.register(program, ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    return reportError(err, io);
  }
}

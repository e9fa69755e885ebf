import { CommanderError } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { ServiceError } from '../service/errors.js';
import { DataDirError } from '../store/open.js';
import { dataDirAdvice } from './data-dir-advice.js';
import type { CliIo } from './cli-io.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** Writes an error as one readable message on stderr and picks the exit code; never a stack trace for expected errors. */
export function reportError(err: unknown, io: CliIo): ExitCode {
  if (err instanceof CommanderError) {
    // Commander has already written its message (or the help text) to stderr/stdout.
    const shownHelp = err.code === 'commander.helpDisplayed' || err.code === 'commander.version';
    return shownHelp || err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof ConfigError) {
    io.stderr.write(`mergeq: ${err.message}\n`);
    return EXIT.config;
  }
  if (err instanceof DataDirError) {
    io.stderr.write(`mergeq: ${dataDirAdvice(err)}\n`);
    return EXIT.config;
  }
  if (err instanceof ServiceError) {
    io.stderr.write(`mergeq: ${err.detail ?? err.title}\n`);
    return err.status === 400 ? EXIT.usage : EXIT.failed;
  }
  // Anything else (a port in use, a store that cannot be reached, a bug): the message, and the stack when debugging.
  const verbose = ['debug', 'trace'].includes(io.env.LOG_LEVEL?.trim().toLowerCase() ?? '');
  const message = err instanceof Error ? ((verbose ? err.stack : undefined) ?? err.message) : String(err);
  io.stderr.write(`mergeq: ${message}\n`);
  return EXIT.failed;
}

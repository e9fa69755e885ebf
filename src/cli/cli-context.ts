import type { Config } from '../config/config.js';
import type { Clock } from '../domain/clock.js';
import type { CliIo } from './cli-io.js';

/** What every command gets: its I/O, the configuration (validated when first asked for) and a clock. */
export interface CliContext {
  io: CliIo;
  config(): Config;
  clock: Clock;
  /** The exit code of this run when the command succeeds; `mergeq test` passes its command's on. */
  exitWith(code: number): void;
}

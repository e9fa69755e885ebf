import { readDotEnv } from '../config/dot-env.js';
import type { CliIo } from './cli-io.js';
import { EXIT } from './exit-codes.js';

/**
 * The process's I/O for a CLI run, its environment with `.env` in the working folder added (the
 * environment wins), for the installed CLI and the single file alike. A `.env` that cannot be read
 * ends the process with the configuration exit code.
 */
export function processIo(): CliIo {
  try {
    const { env, path, fromFile } = readDotEnv(process.env, process.cwd());
    return { stdout: process.stdout, stderr: process.stderr, env, dotEnv: { path, names: fromFile } };
  } catch (err) {
    process.stderr.write(`mergeq: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT.config);
  }
}

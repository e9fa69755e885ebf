import type { CliIo } from './cli-io.js';

/** The settings `--verbose` accounts for: the service's address and the API token (never its value). */
const SETTINGS = [
  { name: 'MERGEQ_URL', flag: 'url', showValue: true },
  { name: 'MERGEQ_TOKEN', flag: 'token', showValue: false },
] as const;

/**
 * `--verbose`: one line per setting on stderr saying where this run took it from — its flag, the
 * environment, or the `.env` in the working folder — or that it is not set.
 */
export function sayWhereSettingsCameFrom(io: CliIo, flags: Record<string, unknown>): void {
  for (const { name, flag, showValue } of SETTINGS) {
    const fromFlag = typeof flags[flag] === 'string';
    const value = fromFlag ? (flags[flag] as string) : io.env[name];
    const origin = fromFlag ? `--${flag}` : value === undefined ? null : io.dotEnv?.names.has(name) ? io.dotEnv.path : 'the environment';
    const line = origin === null ? `${name} is not set` : `${name}${showValue ? ` ${value}` : ''} from ${origin}`;
    io.stderr.write(`mergeq: ${line}\n`);
  }
}

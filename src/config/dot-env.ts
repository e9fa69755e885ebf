import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * The environment with the variables of `<dir>/.env` (as probot apps and `node --env-file` read it)
 * added: a variable set in the environment wins over the file's. No file: the environment as it is.
 */
export function withDotEnv(env: Record<string, string | undefined>, dir: string): Record<string, string | undefined> {
  return readDotEnv(env, dir).env;
}

/** `withDotEnv`, and which variables came from the file (`path`; none without a file). */
export function readDotEnv(env: Record<string, string | undefined>, dir: string): { env: Record<string, string | undefined>; path: string; fromFile: ReadonlySet<string> } {
  const path = join(dir, '.env');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { env, path, fromFile: new Set() };
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
  const fromFile = parseEnv(text);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return { env: merged, path, fromFile: new Set(Object.keys(fromFile).filter((name) => env[name] === undefined)) };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';

/**
 * The environment with the variables of `<dir>/.env` (as probot apps and `node --env-file` read it)
 * added: a variable set in the environment wins over the file's. No file: the environment as it is.
 */
export function withDotEnv(env: Record<string, string | undefined>, dir: string): Record<string, string | undefined> {
  let text: string;
  try {
    text = readFileSync(join(dir, '.env'), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return env;
    throw new Error(`cannot read ${join(dir, '.env')}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
  const fromFile = parseEnv(text);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) merged[name] = value;
  return merged;
}

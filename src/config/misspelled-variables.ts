import { closestName } from '../domain/closest-name.js';
import { envSchema } from './env-schema.js';

/** Read by the client commands (`mergeq queue`, `pr`, `test`), not by the service: known, not misspelled. */
const CLIENT_VARIABLES = ['MERGEQ_URL', 'MERGEQ_TOKEN', 'MERGEQ_UPLOAD_BACKOFF_MS'];

const KNOWN: readonly string[] = [...Object.keys(envSchema.shape), ...CLIENT_VARIABLES];

/**
 * A warning for each MERGEQ_* variable the service does not know (a typo silently keeps the
 * default), naming the closest known variable. Only names are shown, never values.
 */
export function misspelledVariables(env: Record<string, string>): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('MERGEQ_') || KNOWN.includes(name)) continue;
    const closest = closestName(name, KNOWN);
    warnings.push(`${name} is not a mergeq variable and is ignored${closest ? `; did you mean ${closest}?` : ''}`);
  }
  return warnings;
}

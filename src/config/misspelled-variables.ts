import { envSchema } from './env-schema.js';

const KNOWN: readonly string[] = Object.keys(envSchema.shape);

/** Edits (insert, delete, substitute) between two strings. */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * A warning for each MERGEQ_* variable the service does not know (a typo silently keeps the
 * default), naming the closest known variable. Only names are shown, never values.
 */
export function misspelledVariables(env: Record<string, string>): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('MERGEQ_') || KNOWN.includes(name)) continue;
    const closest = [...KNOWN].sort((x, y) => levenshtein(name, x) - levenshtein(name, y))[0]!;
    warnings.push(`${name} is not a mergeq variable and is ignored; did you mean ${closest}?`);
  }
  return warnings;
}

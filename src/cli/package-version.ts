import { readFileSync } from 'node:fs';

/** Set by the bundler in the single-file CLI (scripts/bundle-cli.mjs), which has no package.json beside it. */
declare const MERGEQ_BUNDLED_VERSION: string | undefined;

/** The version in package.json, two folders up from both src/cli and dist/cli; the server's version in the single-file CLI. */
export function packageVersion(): string {
  if (typeof MERGEQ_BUNDLED_VERSION === 'string') return MERGEQ_BUNDLED_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parts of app.yml (GitHub's App manifest) that `setup github` sends and `doctor` compares with an installation. */
export interface AppManifest {
  name: string;
  url: string;
  hook_attributes?: { url: string; active?: boolean };
  redirect_url?: string;
  public?: boolean;
  default_permissions: Record<string, string>;
  default_events: string[];
  [field: string]: unknown;
}

/** app.yml at the package's root: three folders up from both src/cli/github-app and dist/cli/github-app. */
export function readAppManifest(path: URL | string = new URL('../../../app.yml', import.meta.url)): AppManifest {
  const manifest = parse(readFileSync(path, 'utf8')) as AppManifest;
  return { ...manifest, default_permissions: manifest.default_permissions ?? {}, default_events: manifest.default_events ?? [] };
}

const LEVELS = ['none', 'read', 'write', 'admin'];

/** Permissions `wanted` asks for that `granted` lacks or grants at a lower level, as `name: level`. */
export function missingPermissions(wanted: Record<string, string>, granted: Record<string, string | undefined>): string[] {
  return Object.entries(wanted)
    .filter(([name, level]) => LEVELS.indexOf(granted[name] ?? 'none') < LEVELS.indexOf(level))
    .map(([name, level]) => `${name}: ${level}`);
}

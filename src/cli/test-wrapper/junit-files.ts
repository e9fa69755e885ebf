import { readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { globBase, globToRegExp } from './glob-pattern.js';

const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git']);

/**
 * The files matching `glob` (relative to `cwd`) modified at or after `sinceMs` — reports written by
 * this run, not stale ones from an earlier run. Sorted, so uploads are repeatable.
 */
export function findJunitFiles(glob: string, cwd: string, sinceMs: number): string[] {
  const pattern = globToRegExp(glob.replace(/\\/g, '/'));
  const base = resolve(cwd, globBase(glob));
  const found: string[] = [];
  const visit = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(e.name)) visit(path);
        continue;
      }
      if (!e.isFile()) continue;
      const shown = isAbsolute(glob) ? path : relative(cwd, path).split('\\').join('/');
      if (!pattern.test(shown)) continue;
      // File times may be coarser than the clock: a second's grace keeps a report written at once.
      if (statSync(path).mtimeMs >= sinceMs - 1000) found.push(path);
    }
  };
  const baseStat = statSafe(base);
  if (baseStat?.isFile()) {
    if (baseStat.mtimeMs >= sinceMs - 1000) found.push(base);
  } else visit(base);
  return found.sort();
}

function statSafe(path: string) {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

import { readFileSync } from 'node:fs';

/**
 * The README says `npm ci` has nothing to warn about on npm 11.16+: npm lists every installed
 * package with an install script that package.json's `allowScripts` does not name (and npm 12 skips
 * their scripts). The lockfile says which packages have one (`hasInstallScript`).
 */
const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

test('every package of the lockfile with an install script is reviewed in allowScripts', () => {
  const lock = read('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
  const allowScripts = (read('package.json').allowScripts ?? {}) as Record<string, boolean>;
  const withScripts = Object.entries(lock.packages)
    .filter(([, p]) => p.hasInstallScript)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(withScripts.length).toBeGreaterThan(0);
  expect(withScripts.filter((name) => !(name in allowScripts))).toEqual([]);
});

// Bundles the single-file CLI the service serves at GET /cli/mergeq.mjs: `mergeq test`, `queue` and
// `pr` (src/cli/bundle-main.ts) with commander, as one ES module that needs only Node 20 or later,
// carrying the package's version. Run by `npm run build` and the prepare script, after tsc.
import { readFileSync } from 'node:fs';
import console from 'node:console';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/bundle-main.ts'],
  outfile: 'dist/mergeq.mjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  define: { MERGEQ_BUNDLED_VERSION: JSON.stringify(version) },
  // commander is CommonJS: its require() of Node's modules needs a real require in an ES module.
  banner: {
    js: `#!/usr/bin/env node\n// mergeq ${version}: the single-file CLI (docs/cli.md).\nimport { createRequire as __mergeqCreateRequire } from 'node:module';\nconst require = __mergeqCreateRequire(import.meta.url);`,
  },
  legalComments: 'eof',
  metafile: process.argv.includes('--metafile'),
  logLevel: 'warning',
}).then((result) => {
  if (result.metafile) for (const [input, { bytes }] of Object.entries(result.metafile.inputs)) console.log(bytes, input);
});

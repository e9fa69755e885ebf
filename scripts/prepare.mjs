// npm's prepare script: builds dist/ at `npm ci`/`npm install`. `npx mergeq` in a clone packs the
// project again (npm exec), which would re-run tsc for 10+ seconds before every first command; when
// dist/ is already built there, it is used as it is.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { URL } from 'node:url';

if (process.env.npm_command === 'exec' && existsSync(new URL('../dist/cli/main.js', import.meta.url))) process.exit(0);
const cwd = new URL('..', import.meta.url).pathname;
execFileSync(process.execPath, [new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname, '-p', 'tsconfig.build.json'], { stdio: 'inherit', cwd });
// The single-file CLI the service serves at /cli/mergeq.mjs.
execFileSync(process.execPath, [new URL('./bundle-cli.mjs', import.meta.url).pathname], { stdio: 'inherit', cwd });

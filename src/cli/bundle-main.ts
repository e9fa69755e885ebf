import { runRemoteCli } from './remote-cli.js';

// The entry point of the single file `npm run build` bundles (scripts/bundle-cli.mjs) and the service
// serves at /cli/mergeq.mjs.
const code = await runRemoteCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exitCode = code;
setTimeout(() => process.exit(code), 3000).unref();

import { processIo } from './process-io.js';
import { runRemoteCli } from './remote-cli.js';

// The entry point of the single file `npm run build` bundles (scripts/bundle-cli.mjs) and the service
// serves at /cli/mergeq.mjs. It reads `.env` in its working folder, as the installed CLI does.
const code = await runRemoteCli(process.argv.slice(2), processIo());
process.exitCode = code;
setTimeout(() => process.exit(code), 3000).unref();

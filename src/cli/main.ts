#!/usr/bin/env node
import { processIo } from './process-io.js';
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// A driver timer or socket left open must not keep a finished command alive; unref'd, so a clean exit is not delayed.
setTimeout(() => process.exit(code), 3000).unref();

#!/usr/bin/env node
import { withDotEnv } from '../config/dot-env.js';
import { EXIT } from './exit-codes.js';
import { runCli } from './run-cli.js';

let env: Record<string, string | undefined>;
try {
  env = withDotEnv(process.env, process.cwd());
} catch (err) {
  process.stderr.write(`mergeq: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(EXIT.config);
}
const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env });
process.exitCode = code;
// A driver timer or socket left open must not keep a finished command alive; unref'd, so a clean exit is not delayed.
setTimeout(() => process.exit(code), 3000).unref();

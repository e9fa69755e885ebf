import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/run-cli.js';
import type { Clock } from '../../src/domain/clock.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function buffer() {
  const chunks: string[] = [];
  return { write: (text: string) => chunks.push(text), text: () => chunks.join('') };
}

/** A temporary MERGEQ_DATA_DIR and a way to run `mergeq` in-process against it. */
export function cliSandbox(clock?: Clock) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mergeq-cli-'));
  const env: Record<string, string> = { MERGEQ_DATA_DIR: dataDir };
  return {
    dataDir,
    env,
    async run(argv: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
      const stdout = buffer();
      const stderr = buffer();
      const code = await runCli(argv, { stdout, stderr, env: { ...env, ...extraEnv } }, { clock });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    },
    cleanup: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

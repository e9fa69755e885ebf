import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

/** A port free a moment ago (MERGEQ_PORT takes no 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
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

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataDirAdvice } from '../../src/cli/data-dir-advice.js';
import { DataDirError } from '../../src/store/open.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';
import { cliSandbox, freePort } from './cli-harness.js';

/**
 * `mergeq serve` as a person starts it (dist/cli/main.js as a child process; `npm run build` first):
 * what it says once it listens, and how it stops when its data folder cannot be used.
 */
const MAIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'cli', 'main.js');

const cli = cliSandbox();
afterAll(() => cli.cleanup());

/** Runs `mergeq serve` until its stderr matches `until` (then stops it) or it exits; at most `timeoutMs`. */
function serve(env: Record<string, string>, until: RegExp | null, timeoutMs = 15_000) {
  const proc = spawn(process.execPath, [MAIN, 'serve'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  return new Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }>((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    let timedOut = true;
    proc.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
      if (until?.test(stderr)) {
        timedOut = false;
        proc.kill('SIGTERM');
      }
    });
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut: timedOut && signal === 'SIGKILL' });
    });
  });
}

describe('mergeq serve, started by hand', () => {
  it('writes one plain line with the address, the web page, the next command and the sandbox hint; stdout stays JSON lines', async () => {
    const port = await freePort();
    const run = await serve({ MERGEQ_DATA_DIR: cli.dataDir, MERGEQ_PORT: String(port), MERGEQ_HOST: '127.0.0.1' }, /mergeq is running.*\n/);
    expect(run.timedOut).toBe(false);
    const [line] = run.stderr.split('\n');
    expect(line).toContain(`at http://127.0.0.1:${port}/ (web page http://127.0.0.1:${port}/ui/)`);
    expect(line).toContain('Next: npx mergeq org create <org> --owner github.com/<owner>, then npx mergeq token create --org <org>');
    expect(line).toContain('MERGEQ_GITHOST=sandbox');
    for (const out of run.stdout.trim().split('\n')) expect(() => JSON.parse(out)).not.toThrow();
  });

  it('in GitHub mode, warns once on stderr, naming the fault, when GitHub cannot be reached; it keeps serving', async () => {
    const refused = await freePort();
    const run = await serve(
      { MERGEQ_DATA_DIR: cli.dataDir, MERGEQ_PORT: String(await freePort()), MERGEQ_HOST: '127.0.0.1', APP_ID: '1', PRIVATE_KEY: TEST_PRIVATE_KEY, WEBHOOK_SECRET: 's', GITHUB_API_URL: `http://127.0.0.1:${refused}` },
      /warning: GitHub cannot be reached.*\n/,
    );
    expect(run.timedOut).toBe(false);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('GitHub cannot be reached'));
    expect(warnings).toEqual([
      `mergeq: warning: GitHub cannot be reached, so no pull request can be read, tested or merged until it can: nothing answers at 127.0.0.1:${refused} (connection refused): GITHUB_API_URL must be https://api.github.com (unset) or https://<your GitHub Enterprise Server>/api/v3, and it must be reachable from this machine (firewall, proxy). \`mergeq doctor --repo <owner>/<name>\` checks the whole setup.`,
    ]);
    expect(run.stderr.indexOf('mergeq is running')).toBeLessThan(run.stderr.indexOf('GitHub cannot be reached'));
  });

  it('exits with 78 and names MERGEQ_DATA_DIR when the data folder cannot be created (/proc), instead of spinning', async () => {
    const started = Date.now();
    const run = await serve({ MERGEQ_DATA_DIR: '/proc/mergeq-data', MERGEQ_PORT: String(await freePort()) }, null);
    expect(run.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(78);
    expect(run.stderr).toMatch(/^mergeq: cannot use the data folder MERGEQ_DATA_DIR=\/proc\/mergeq-data \(ENOENT[^)]*\); no folder can be created there/);
    expect(run.stderr).toContain('set MERGEQ_DATA_DIR to a folder the service may write');
  });
});

describe('the advice for a data folder the service may not write', () => {
  it('says to give the folder to the service user or choose another (EACCES; tests may run as root, where it cannot happen)', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, mkdir '/srv/data'"), { code: 'EACCES' });
    expect(dataDirAdvice(new DataDirError('/srv/data', denied))).toBe(
      "cannot use the data folder MERGEQ_DATA_DIR=/srv/data (EACCES: permission denied, mkdir '/srv/data'); " +
        'the user running mergeq may not write there: give it the folder (chown or chmod), or set MERGEQ_DATA_DIR to a folder the service may write (./data by default), or use MongoDB (MONGODB_URI)',
    );
  });
});

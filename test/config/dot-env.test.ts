import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { withDotEnv } from '../../src/config/dot-env.js';

/** `.env` in the working directory is read at start (dist/cli/main.js; `npm run build` first); the environment wins. */
const MAIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'cli', 'main.js');

describe('.env', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mergeq-dotenv-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function mergeqOpen(env: Record<string, string> = {}): Promise<string> {
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN, 'open'], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env } });
    return stdout.trim();
  }

  it('is read by mergeq from the working directory, and a variable of the environment wins over it', async () => {
    writeFileSync(join(dir, '.env'), '# the port\nMERGEQ_PORT=4321\nMERGEQ_HOST="127.0.0.1"\n');
    expect(await mergeqOpen()).toBe('http://127.0.0.1:4321/ui/');
    expect(await mergeqOpen({ MERGEQ_PORT: '5000' })).toBe('http://127.0.0.1:5000/ui/');
  });

  it('stops with exit code 78 naming the file when .env cannot be read', async () => {
    mkdirSync(join(dir, '.env'));
    const run = promisify(execFile)(process.execPath, [MAIN, 'open'], { cwd: dir, env: { PATH: process.env.PATH ?? '' } });
    await expect(run).rejects.toMatchObject({ code: 78, stderr: `mergeq: cannot read ${join(dir, '.env')}: EISDIR\n` });
  });

  it('keeps a multi-line quoted PRIVATE_KEY whole, and changes nothing without a file', () => {
    writeFileSync(join(dir, '.env'), 'PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----"\nAPP_ID=12\n');
    expect(withDotEnv({ APP_ID: '7' }, dir)).toEqual({ APP_ID: '7', PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----' });
    const env = { A: '1' };
    expect(withDotEnv(env, join(dir, 'missing'))).toBe(env);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../cli/cli-harness.js';
import { layOutRuntime, type Stage } from './dockerfile-layout.js';

/**
 * The Docker image without Docker: its runtime files laid out exactly as the Dockerfile's COPY lines
 * say (dist/ from `npm run build`, as CI's `npm ci` builds it), then the image's CMD started from
 * them. A file the image forgets (the web page's ui/, the CLI bundle, app.yml) fails here.
 */
const REPO = fileURLToPath(new URL('../..', import.meta.url));

let root: string;
let app: string;
let runtime: Stage;
let env: Record<string, string>;
let server: ReturnType<typeof spawn>;
let base: string;

/** `node` in CMD is this Node (the image's is Node 20 as well). */
const executable = (command: string | undefined) => (command === 'node' ? process.execPath : (command ?? ''));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mergeq-image-'));
  runtime = layOutRuntime(REPO, root, ['dist', 'node_modules'], ['node_modules']);
  app = join(root, 'app');
  const port = await freePort();
  env = { PATH: process.env.PATH ?? '', ...runtime.env, MERGEQ_PORT: String(port), MERGEQ_DATA_DIR: join(root, 'data'), MERGEQ_HOST: '127.0.0.1' };
  base = `http://127.0.0.1:${port}`;
  const [command, ...args] = runtime.cmd!;
  server = spawn(executable(command), args, { cwd: app, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the image's CMD did not start: ${stderr}`)), 15_000);
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (/mergeq is running/.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once('exit', (code) => reject(new Error(`the image's CMD exited with ${code}: ${stderr}`)));
  });
}, 30_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(root, { recursive: true, force: true });
});

describe('the Docker image, laid out from its Dockerfile', () => {
  it('answers /healthz, and its HEALTHCHECK command passes', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const [command, ...args] = runtime.healthcheck!;
    const check = spawnSync(executable(command), args, { cwd: app, env, timeout: 10_000 });
    expect(check.status).toBe(0);
  });

  it('serves the web page at /ui/ and the single-file CLI at /cli/mergeq.mjs', async () => {
    const page = await fetch(`${base}/ui/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const bundle = await fetch(`${base}/cli/mergeq.mjs`);
    expect(bundle.status).toBe(200);
  });

  it('runs the admin CLI inside it (docker compose exec mergeq node dist/cli/main.js …)', () => {
    const cli = (argv: string[]) => spawnSync(process.execPath, ['dist/cli/main.js', ...argv], { cwd: app, env, encoding: 'utf8', timeout: 15_000 });
    const created = cli(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(cli(['org', 'list']).stdout).toContain('acme');
    expect(cli(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

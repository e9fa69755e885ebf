import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parse } from 'yaml';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { cliSandbox } from '../cli/cli-harness.js';

/**
 * The CI wrapper where CI runs: the single file downloaded from a running service (real HTTP, SQLite
 * file) into an empty folder outside the repository, run with plain `node` around a real test
 * command, as docs/flaky-tests.md tells CI to do.
 */

// Writes a JUnit report of two tests; "checkout" fails when FAIL is set. Exits 1 on a failure.
const RUN_TESTS = `
import { mkdirSync, writeFileSync } from 'node:fs';
const fail = process.env.FAIL === '1';
mkdirSync('reports', { recursive: true });
writeFileSync('reports/junit.xml', \`<testsuites><testsuite name="shop" tests="2" failures="\${fail ? 1 : 0}">
  <testcase classname="shop.cart" name="adds an item" file="test/cart.test.js"/>
  <testcase classname="shop.checkout" name="charges the card" file="test/checkout.test.js">\${fail ? '<failure message="timeout"/>' : ''}</testcase>
</testsuite></testsuites>\`);
process.exit(fail ? 1 : 0);
`;

const cli = cliSandbox();
let server: RunningServer;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  // What `npm run build` does for the single file, from the sources under test.
  execFileSync(process.execPath, ['scripts/bundle-cli.mjs'], { stdio: 'inherit' });
  await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
  const token = (await cli.run(['token', 'create', '--org', 'acme', '--name', 'ci'])).stdout.trim();
  server = await startServer(
    { port: 0, host: '127.0.0.1', dataDir: cli.dataDir, mongodbUri: null, logLevel: 'silent', gitHost: { kind: 'none' }, warnings: [] },
    { logger: pino({ level: 'silent' }) },
  );
  folder = mkdtempSync(join(tmpdir(), 'mergeq-ci-checkout-'));
  writeFileSync(join(folder, 'run-tests.mjs'), RUN_TESTS);
  // A GitHub Actions job, as the runner describes it; nothing of this repository's environment.
  env = {
    PATH: process.env.PATH ?? '',
    MERGEQ_URL: `http://127.0.0.1:${server.port}`,
    MERGEQ_TOKEN: token,
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_REF_NAME: 'feature',
    GITHUB_JOB: 'test',
  };
}, 60_000);

afterAll(async () => {
  await server.stop();
  cli.cleanup();
  rmSync(folder, { recursive: true, force: true });
});

/** `node <args>` in the folder; asynchronous, as the service answers from this process. */
function node(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: folder, env: { ...env, ...extraEnv }, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      else resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

test('curl -fsS "$MERGEQ_URL/cli/mergeq.mjs" -o mergeq.mjs && node mergeq.mjs test ...: uploads, learns, forgives', async () => {
  const res = await fetch(`${env.MERGEQ_URL}/cli/mergeq.mjs`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  writeFileSync(join(folder, 'mergeq.mjs'), Buffer.from(await res.arrayBuffer()));

  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  expect(await node(['mergeq.mjs', '--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });

  const wrapped = ['mergeq.mjs', 'test', '--junit', 'reports/*.xml', '--', process.execPath, 'run-tests.mjs'];
  // Commit 1: checkout fails, then passes on a rerun of the same commit: flaky, so quarantined.
  const failing = await node(wrapped, { GITHUB_SHA: 'sha-1', FAIL: '1' });
  expect(failing.code).toBe(1);
  expect(failing.stderr).toContain('mergeq test: 1 report, 2 tests, 1 failed, 0 quarantined failures');
  expect(failing.stderr).toContain('  failed: test/checkout.test.js › shop.checkout › charges the card');
  const rerun = await node(wrapped, { GITHUB_SHA: 'sha-1' });
  expect(rerun.code).toBe(0);
  expect(rerun.stderr).toContain('  newly flaky: test/checkout.test.js › shop.checkout › charges the card');

  // The service has the results: the test is listed as quarantined for the repository CI named.
  const listed = await fetch(`${env.MERGEQ_URL}/v1/flaky-tests/list-quarantined-tests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': env.MERGEQ_TOKEN! },
    body: JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'shop' }, org_url_slug: 'acme', page_query: {} }),
  });
  expect(((await listed.json()) as { quarantined_tests: { name: string }[] }).quarantined_tests.map((t) => t.name)).toEqual(['charges the card']);

  // Commit 2: its failure is forgiven.
  const forgiven = await node(wrapped, { GITHUB_SHA: 'sha-2', FAIL: '1' });
  expect(forgiven.code).toBe(0);
  expect(forgiven.stderr).toContain('  forgiven (quarantined): test/checkout.test.js › shop.checkout › charges the card');
}, 60_000);

test('the same file works the queues: queue create, queue list, pr submit, pr status', async () => {
  expect((await node(['mergeq.mjs', 'queue', 'create', '--repo', 'acme/shop', '--branch', 'main'])).code).toBe(0);
  const list = await node(['mergeq.mjs', 'queue', 'list']);
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^github\.com\/acme\/shop\s+main\s+running\s+single\s+0\s/m);
  expect((await node(['mergeq.mjs', 'pr', 'submit', '3', '--repo', 'acme/shop', '--branch', 'main'])).code).toBe(0);
  expect((await node(['mergeq.mjs', 'pr', 'status', '3', '--repo', 'acme/shop', '--branch', 'main'])).stdout).toContain('PR #3 is NOT_READY');
});

test("action.yml's step (composite: download from MERGEQ_URL, run mergeq test) runs as a runner would run it", async () => {
  const action = parse(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, { required: boolean }>; runs: { using: string; steps: { run: string; env: object }[] } };
  expect(action.runs.using).toBe('composite');
  expect(Object.entries(action.inputs).filter(([, i]) => i.required).map(([name]) => name)).toEqual(['command', 'junit']);
  const step = action.runs.steps[0]!;
  expect(step.env).toMatchObject({ MERGEQ_URL: '${{ inputs.url || env.MERGEQ_URL }}', MERGEQ_TOKEN: '${{ inputs.token || env.MERGEQ_TOKEN }}' });
  const run = await new Promise<{ code: number; stderr: string }>((resolve) => {
    const inputs = { MERGEQ_COMMAND: `"${process.execPath}" run-tests.mjs`, MERGEQ_JUNIT: 'reports/*.xml', MERGEQ_VARIANT: 'linux', RUNNER_TEMP: folder, GITHUB_SHA: 'sha-3', FAIL: '1' };
    execFile('bash', ['-c', step.run], { cwd: folder, env: { ...env, ...inputs } }, (err, _stdout, stderr) =>
      resolve({ code: err ? (err.code as number) : 0, stderr }),
    );
  });
  // A new variant is a new test case, not quarantined: the failure stands.
  expect(run).toEqual({ code: 1, stderr: expect.stringContaining('  failed: test/checkout.test.js › shop.checkout › charges the card') });
});

test('reads MERGEQ_URL and MERGEQ_TOKEN from .env in its working folder (the environment wins), and says which with --verbose', async () => {
  const { MERGEQ_URL, MERGEQ_TOKEN, ...noService } = env;
  const dir = mkdtempSync(join(tmpdir(), 'mergeq-dotenv-'));
  try {
    writeFileSync(join(dir, 'mergeq.mjs'), readFileSync(join(folder, 'mergeq.mjs')));
    writeFileSync(join(dir, '.env'), `MERGEQ_URL=${MERGEQ_URL}\nMERGEQ_TOKEN=${MERGEQ_TOKEN}\n`);
    const run = (args: string[], extra: Record<string, string> = {}) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, ['mergeq.mjs', ...args], { cwd: dir, env: { ...noService, ...extra }, timeout: 60_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? (err.code as number) : 0, stdout, stderr }),
        ),
      );
    const listed = await run(['queue', 'list', '--verbose']);
    expect(listed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^github\.com\/acme\/shop\s+main/m) });
    expect(listed.stderr).toContain(`mergeq: MERGEQ_URL ${MERGEQ_URL} from ${join(dir, '.env')}\n`);
    expect(listed.stderr).toContain(`mergeq: MERGEQ_TOKEN from ${join(dir, '.env')}\n`);
    expect(listed.stderr).not.toContain(MERGEQ_TOKEN!);

    // A variable of the environment wins over the file's; a flag over both.
    const overridden = await run(['queue', 'list', '--verbose', '--url', MERGEQ_URL!], { MERGEQ_TOKEN: MERGEQ_TOKEN! });
    expect(overridden.code).toBe(0);
    expect(overridden.stderr).toContain(`mergeq: MERGEQ_URL ${MERGEQ_URL} from --url\n`);
    expect(overridden.stderr).toContain('mergeq: MERGEQ_TOKEN from the environment\n');
    // Without --verbose nothing is said about it.
    expect((await run(['queue', 'list'])).stderr).toBe('');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the admin commands are not in the single file; it says where they are', async () => {
  const serve = await node(['mergeq.mjs', 'serve']);
  expect(serve.code).toBe(2);
  expect((await node(['mergeq.mjs', '--help'])).stdout).toContain('`mergeq serve` and the admin commands are in the\nfull CLI');
});

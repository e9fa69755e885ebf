import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { cliSandbox, type CliRun } from '../cli/cli-harness.js';

/**
 * The flaky-test half end to end: the real service (SQLite file, HTTP on a port), the real CLI, and a
 * real jest run with jest-junit as the test command. No mocks between them.
 */

const JEST = join(process.cwd(), 'node_modules', 'jest', 'bin', 'jest.js');
const JEST_JUNIT = join(process.cwd(), 'node_modules', 'jest-junit');
const REPO = 'github.com/acme/shop';

// "loads prices" fails on its first attempt (no marker yet) and passes on the retry; FAIL_PRICES and
// FAIL_CART make a test fail on purpose.
const CART_TEST = `
const fs = require('node:fs');
const path = require('node:path');
const marker = path.join(__dirname, '.prices-ran-once');
describe('cart', () => {
  test('loads prices', () => {
    const first = !fs.existsSync(marker);
    fs.writeFileSync(marker, 'x');
    if (first || process.env.FAIL_PRICES === '1') throw new Error('timeout talking to the price service');
  });
  test('adds an item', () => {
    if (process.env.FAIL_CART === '1') throw new Error('a real bug');
  });
});
`;

const cli = cliSandbox();
let project: string;
let server: RunningServer;
let env: Record<string, string>;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'mergeq-e2e-project-'));
  mkdirSync(join(project, 'src'));
  writeFileSync(join(project, 'src', 'cart.test.js'), CART_TEST);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', private: true }));

  await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
  const token = (await cli.run(['token', 'create', '--org', 'acme', '--name', 'ci'])).stdout.trim();
  server = await startService();
  env = {
    PATH: process.env.PATH ?? '',
    MERGEQ_URL: `http://127.0.0.1:${server.port}`,
    MERGEQ_TOKEN: token,
    MERGEQ_UPLOAD_BACKOFF_MS: '20',
    JEST_JUNIT_OUTPUT_DIR: join(project, 'reports'),
    JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true',
  };
}, 60_000);

afterAll(async () => {
  await server.stop();
  cli.cleanup();
  rmSync(project, { recursive: true, force: true });
});

function startService(): Promise<RunningServer> {
  return startServer(
    { port: 0, host: '127.0.0.1', dataDir: cli.dataDir, mongodbUri: null, logLevel: 'silent', gitHost: { kind: 'none' }, warnings: [] },
    { logger: pino({ level: 'silent' }) },
  );
}

/** `mergeq test` around a real jest run in the project. */
async function wrappedJest(commit: string, extraEnv: Record<string, string> = {}): Promise<CliRun> {
  const argv = ['test', '--junit', 'reports/*.xml', '--repo', REPO, '--commit', commit, '--branch', 'feature', '--', process.execPath, JEST, '--ci', '--silent', `--reporters=${JEST_JUNIT}`];
  const { runCli } = await import('../../src/cli/run-cli.js');
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: { ...env, ...extraEnv }, cwd: project });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function api(path: string, body: unknown) {
  const res = await fetch(`${env.MERGEQ_URL}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': env.MERGEQ_TOKEN! },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { quarantined_tests: unknown[]; page: Record<string, unknown> } };
}

const listQuarantined = (page_query: object = {}) =>
  api('flaky-tests/list-quarantined-tests', { repo: { host: 'github.com', owner: 'acme', name: 'shop' }, org_url_slug: 'acme', page_query });

test('a test that failed once and passed on retry is quarantined, and its failures stop failing CI', async () => {
  // Run 1: "loads prices" fails on its first attempt: nothing is quarantined yet, the command's code stands.
  const first = await wrappedJest('sha-1');
  expect(first.code).toBe(1);
  expect(first.stderr).toContain('2 tests, 1 failed, 0 quarantined failures');
  expect(first.stderr).toMatch(/\n {2}failed: src\/cart\.test\.js › cart loads prices \[id [0-9a-f-]{36}\]\n/);

  // Run 2, same commit: it passes. A fail and a pass on one commit: flaky, quarantined.
  const second = await wrappedJest('sha-1');
  expect(second.code).toBe(0);
  expect(second.stderr).toMatch(/\n {2}newly flaky: src\/cart\.test\.js › cart loads prices \[id [0-9a-f-]{36}\]\n/);
  const listed = await listQuarantined({ page_size: 1 });
  expect(listed.status).toBe(200);
  expect(listed.body.quarantined_tests).toEqual([
    {
      name: 'cart loads prices',
      parent: 'cart',
      // jest-junit writes absolute paths; the wrapper sends its directory, so the path is relative.
      file: 'src/cart.test.js',
      classname: 'cart loads prices',
      codeowners: [],
      quarantined_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      status_last_updated_at: expect.stringMatching(/Z$/),
      test_case_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      variant: null,
      status: 'flaky',
      quarantine_setting: 'auto',
    },
  ]);
  expect(listed.body.page).toEqual({ total_rows: 1, total_pages: 1, page_index: 0, next_page_token: '', prev_page_token: '', last_page_token: expect.any(String) });

  // Run 3: only the quarantined test fails: forgiven, exit 0, and it says which.
  const third = await wrappedJest('sha-2', { FAIL_PRICES: '1' });
  expect(third.code).toBe(0);
  expect(third.stderr).toContain('1 quarantined failure');
  expect(third.stderr).toMatch(/\n {2}forgiven \(quarantined\): src\/cart\.test\.js › cart loads prices \[id [0-9a-f-]{36}\]\n/);
  expect(third.stderr).not.toContain('  failed:');

  // Run 4: another test fails too: the command's own code.
  const fourth = await wrappedJest('sha-3', { FAIL_PRICES: '1', FAIL_CART: '1' });
  expect(fourth.code).toBe(1);
  expect(fourth.stderr).toContain('2 failed, 1 quarantined failure');
  expect(fourth.stderr).toMatch(/\n {2}failed: src\/cart\.test\.js › cart adds an item \[id [0-9a-f-]{36}\]\n/);

  // A malformed report uploaded by `mergeq test upload` changes nothing; the same uploadId twice neither.
  const before = await listQuarantined();
  mkdirSync(join(project, 'broken'));
  writeFileSync(join(project, 'broken', 'junit.xml'), '<testsuites><testsuite name="cart"><testcase name="x"></testsuite>');
  const malformed = await cli.run(['test', 'upload', '--junit', join(project, 'broken', '*.xml'), '--repo', REPO, '--commit', 'sha-9'], env);
  expect(malformed.code).toBe(1);
  expect(malformed.stderr).toMatch(/HTTP 400: junitXml\[0\] is not well-formed XML at line 1, column \d+/);
  const passing = '<testsuites><testsuite name="cart"><testcase classname="cart loads prices" name="cart loads prices" file="src/cart.test.js"/></testsuite></testsuites>';
  const twice = async () =>
    (
      await fetch(`${env.MERGEQ_URL}/v1/flaky-tests/upload`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': env.MERGEQ_TOKEN! },
        body: JSON.stringify({ repo: { host: 'github.com', owner: 'acme', name: 'shop' }, commitSha: 'sha-9', branch: 'main', uploadId: 'same-id', junitXml: passing }),
      })
    ).json();
  expect(await twice()).toEqual(await twice());
  expect((await listQuarantined()).body).toEqual(before.body);

  // A glob that matches nothing (report/ for reports/) is said, not silent; one that matches only older reports too.
  const typo = await cli.run(['test', '--junit', 'report/*.xml', '--repo', REPO, '--commit', 'sha-7', '--', process.execPath, '-e', ''], env);
  expect(typo.code).toBe(0);
  expect(typo.stderr).toContain("warning: --junit 'report/*.xml' matched no file");
  const minuteAgo = new Date(Date.now() - 60_000);
  for (const f of readdirSync(join(project, 'reports'))) utimesSync(join(project, 'reports', f), minuteAgo, minuteAgo);
  const stale = await cli.run(['test', '--junit', `${project}/reports/*.xml`, '--repo', REPO, '--commit', 'sha-7', '--', process.execPath, '-e', ''], env);
  expect(stale.stderr).toMatch(/matched 1 file, none written by this run/);

  // A wrong token: the command's output, then 70.
  const denied = await wrappedJest('sha-4', { FAIL_PRICES: '1', MERGEQ_TOKEN: 'mq_wrong' });
  expect(denied.code).toBe(70);
  expect(denied.stderr).toContain('refused the token');

  // The service stopped: the command's own code, and why.
  await server.stop();
  const offline = await wrappedJest('sha-5', { FAIL_PRICES: '1' });
  expect(offline.code).toBe(1);
  expect(offline.stderr).toMatch(/service is unavailable .*ECONNREFUSED.*after 5 attempts.*keeping the command's exit code 1/);
  // A passing command passes, service or not.
  const passingRun = await wrappedJest('sha-6');
  expect(passingRun.code).toBe(0);
  expect(passingRun.stderr).toContain('unavailable');
}, 120_000);

test('a run never forgives its own new failure: the failure that makes a test flaky fails that run, and is forgiven from the next', async () => {
  // The previous test stopped the service: the same data, served again.
  server = await startService();
  env.MERGEQ_URL = `http://127.0.0.1:${server.port}`;

  // "adds an item" passes on sha-own, then fails on sha-own: this upload makes it flaky and quarantines it.
  expect((await wrappedJest('sha-own')).code).toBe(0);
  const own = await wrappedJest('sha-own', { FAIL_CART: '1' });
  expect(own.code).toBe(1);
  expect(own.stderr).toContain('2 tests, 1 failed, 0 quarantined failures');
  expect(own.stderr).toContain('1 failure quarantined by this run: not forgiven this time');
  expect(own.stderr).not.toContain('forgiven (quarantined)');
  const listed = await listQuarantined();
  expect(listed.body.quarantined_tests).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cart adds an item', status: 'flaky' })]));

  // The next run: quarantined before its results arrived, so forgiven.
  const next = await wrappedJest('sha-next', { FAIL_CART: '1' });
  expect(next.code).toBe(0);
  expect(next.stderr).toContain('1 failed, 1 quarantined failure');
  expect(next.stderr).toMatch(/forgiven \(quarantined\): .*adds an item/);
}, 120_000);

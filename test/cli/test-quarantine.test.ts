import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { cliSandbox } from './cli-harness.js';

/**
 * `mergeq test` as a team uses it by hand: the repository spelt as `queue` and `pr` take it
 * (owner/name), the test ids it saw, a test quarantined and released from the command line, and a
 * repository of another organization named as such (not "check MERGEQ_TOKEN").
 */
const cli = cliSandbox();
let server: RunningServer;
let env: Record<string, string>;
let reports: string;

// A command that writes a JUnit report where "charges the card" fails, and exits 1.
const FAILING = `require('node:fs').writeFileSync(process.argv[1], '<testsuites><testsuite name="shop"><testcase classname="shop.checkout" name="charges the card" file="test/checkout.test.js"><failure message="timeout"/></testcase><testcase classname="shop.cart" name="adds an item" file="test/cart.test.js"/></testsuite></testsuites>'); process.exit(1)`;

beforeAll(async () => {
  await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
  await cli.run(['org', 'create', 'globex', '--owner', 'github.com/globex']);
  const token = (await cli.run(['token', 'create', '--org', 'acme', '--name', 'ci'])).stdout.trim();
  server = await startServer(
    { port: 0, host: '127.0.0.1', dataDir: cli.dataDir, mongodbUri: null, logLevel: 'silent', gitHost: { kind: 'none' }, warnings: [] },
    { logger: pino({ level: 'silent' }) },
  );
  env = { MERGEQ_URL: `http://127.0.0.1:${server.port}`, MERGEQ_TOKEN: token, MERGEQ_UPLOAD_BACKOFF_MS: '10' };
  reports = mkdtempSync(join(tmpdir(), 'mergeq-reports-'));
}, 30_000);

afterAll(async () => {
  await server.stop();
  cli.cleanup();
  rmSync(reports, { recursive: true, force: true });
});

/** `mergeq test --repo <repo>` around the failing command, on its own commit and report folder. */
async function failingRun(repo: string, commit: string) {
  const dir = join(reports, commit);
  mkdirSync(dir);
  return cli.run(['test', '--junit', `${dir}/*.xml`, '--repo', repo, '--commit', commit, '--', process.execPath, '-e', FAILING, join(dir, 'junit.xml')], env);
}

test('owner/name is a repository spelling; the failed test is named with its id; quarantine and release by that id', async () => {
  const first = await failingRun('acme/shop', 'c1');
  expect(first.code).toBe(1);
  const id = /\n {2}failed: test\/checkout\.test\.js › shop\.checkout › charges the card \[id ([0-9a-f-]{36})\]\n/.exec(first.stderr)?.[1];
  expect(id).toBeDefined();

  const quarantined = await cli.run(['test', 'quarantine', id!, '--repo', 'acme/shop', '--reason', 'times out on CI'], env);
  expect(quarantined).toEqual({
    code: 0,
    stderr: '',
    stdout: `test/checkout.test.js › shop.checkout › charges the card [id ${id}] of github.com/acme/shop: quarantined: its failures no longer fail CI (setting always, status healthy)\n`,
  });
  const forgiven = await failingRun('github.com/acme/shop', 'c2');
  expect(forgiven.code).toBe(0);
  expect(forgiven.stderr).toContain(`  forgiven (quarantined): test/checkout.test.js › shop.checkout › charges the card [id ${id}]`);

  const released = await cli.run(['test', 'release', id!, '--repo', 'acme/shop'], env);
  expect(released.stdout).toContain(`[id ${id}] of github.com/acme/shop: not quarantined: its failures fail CI (setting never,`);
  expect((await failingRun('acme/shop', 'c3')).code).toBe(1);
  const auto = await cli.run(['test', 'release', id!, '--repo', 'acme/shop', '--auto', '--json'], env);
  expect(JSON.parse(auto.stdout)).toMatchObject({ test_case_id: id, quarantine_setting: 'auto' });
});

test('a repository of another organization is named as such, not as a wrong token', async () => {
  const run = await failingRun('globex/shop', 'c4');
  expect(run.code).toBe(70);
  expect(run.stderr).toContain('mergeq test: the service refused the results for this repository (HTTP 403: github.com/globex is not owned by this organization): MERGEQ_TOKEN belongs to an organization that does not own it');
  expect(run.stderr).not.toContain('check MERGEQ_TOKEN');
});

test('a --repo that is no repository, and quarantine without --repo, are usage errors', async () => {
  expect(await cli.run(['test', 'upload', '--junit', 'x.xml', '--repo', 'shop', '--commit', 'c'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--repo must be owner/name or host/owner/name, got "shop"') });
  expect(await cli.run(['test', 'quarantine', 'abc'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--repo <repo> is required') });
});

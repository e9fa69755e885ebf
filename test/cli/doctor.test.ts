import { pino } from 'pino';
import { FakeGitHubApp } from '../../src/testing/fake-github-app.js';
import { serveFakeGitHub, type FakeGitHubServer } from '../../src/testing/fake-github-server.js';
import { FakeGitHub } from '../../src/testing/fake-github.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';
import { cliSandbox, freePort } from './cli-harness.js';

/**
 * `mergeq doctor` against the stateful fake GitHub served over HTTP, with the real service receiving
 * the fake's webhook deliveries: healthy, then one thing broken at a time.
 */
describe('mergeq doctor', () => {
  let fake: FakeGitHub;
  let github: FakeGitHubApp;
  let api: FakeGitHubServer;
  let server: RunningServer;
  let cli: ReturnType<typeof cliSandbox>;

  beforeEach(async () => {
    fake = new FakeGitHub();
    github = new FakeGitHubApp(fake);
    api = await serveFakeGitHub(github);
    cli = cliSandbox();
    Object.assign(cli.env, { APP_ID: '1', PRIVATE_KEY: TEST_PRIVATE_KEY, WEBHOOK_SECRET: github.hookSecret, GITHUB_API_URL: api.url });
    server = await startServer({ ...loadConfig(cli.env), port: 0, host: '127.0.0.1' }, { logger: pino({ level: 'silent' }) });
    github.hookUrl = `http://127.0.0.1:${server.port}/api/github/webhooks`;
    const host = new URL(api.url).host;
    expect((await cli.run(['org', 'create', 'acme', '--owner', `${host}/acme`])).code).toBe(0);
    const token = (await cli.run(['token', 'create', '--org', 'acme'])).stdout.trim();
    const created = await cli.run(['queue', 'create', '--repo', `${host}/acme/widgets`, '--branch', 'main'], { MERGEQ_URL: `http://127.0.0.1:${server.port}`, MERGEQ_TOKEN: token });
    expect(created.code).toBe(0);
  });

  afterEach(async () => {
    await github.settled();
    await server.stop();
    await api.close();
    cli.cleanup();
  });

  async function doctor(wait = '5s') {
    const run = await cli.run(['doctor', '--repo', 'acme/widgets', '--wait', wait]);
    const lines = run.stdout.trim().split('\n');
    return { ...run, lines, line: (check: string) => lines.find((l) => l.includes(` ${check}: `)) ?? `(no ${check} line)` };
  }

  it('says ok on every line of a healthy installation, and deletes its probe branch', async () => {
    const run = await doctor();
    expect(run.lines).toEqual([
      expect.stringMatching(/^ok {4}App installed: mergeq is installed on acme\/widgets \(installation 7\) with the permissions and events of app\.yml$/),
      expect.stringMatching(/^ok {4}webhooks: GitHub delivered the probe's push to http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks, answered 200$/),
      expect.stringMatching(/^ok {4}queue: a queue merges into main/),
      'ok    required checks: runs wait for ci (required by main\'s protection and rulesets)',
      'ok    CI on mergeq/**: CI reported ci on mergeq/doctor-probe',
      'ok    fast-forward: the App may fast-forward main to a tested commit',
    ]);
    expect(run.code).toBe(0);
    expect(fake.branches('mergeq/')).toEqual([]);
  });

  it('fails the webhooks line, saying where to point the App, when deliveries do not reach the service', async () => {
    github.hookUrl = `http://127.0.0.1:${await freePort()}/api/github/webhooks`;
    const run = await doctor();
    expect(run.line('webhooks')).toMatch(/^FAIL {2}webhooks: GitHub's delivery to http:\/\/127\.0\.0\.1:\d+\/api\/github\/webhooks failed \(Invalid HTTP Response: connection refused\): point the App's webhook URL at https:\/\/<your mergeq host>\/api\/github\/webhooks, reachable from GitHub \(on a laptop: WEBHOOK_PROXY_URL/);
    expect(run.lines.filter((l) => l.startsWith('FAIL'))).toHaveLength(1);
    expect(run.code).toBe(1);
  });

  it('fails the webhooks line naming WEBHOOK_SECRET when the service refuses the signature', async () => {
    github.hookSecret = 'another-secret';
    const run = await doctor();
    expect(run.line('webhooks')).toMatch(/refused GitHub's delivery \(400\): WEBHOOK_SECRET must be the App's webhook secret$/);
    expect(run.code).toBe(1);
  });

  it('fails the CI line, saying how to make CI run on mergeq/**, when CI runs only on main', async () => {
    github.ciBranches = /^main$/;
    const run = await doctor('1s');
    expect(run.line('CI on mergeq/**')).toBe(
      "FAIL  CI on mergeq/**: nothing reported on mergeq/doctor-probe in 1 s: make the workflow of your checks run on pushes to mergeq/** (GitHub Actions: on.push.branches: [main, 'mergeq/**']; docs/github-app.md, \"Making CI run on test branches\")",
    );
    expect(run.lines.filter((l) => l.startsWith('FAIL'))).toHaveLength(1);
    expect(run.code).toBe(1);
    expect(fake.branches('mergeq/')).toEqual([]);
  });

  it('fails the fast-forward line when a ruleset the App may not bypass protects the target', async () => {
    github.protect('ruleset_without_bypass');
    const run = await doctor();
    expect(run.line('fast-forward')).toBe(
      'FAIL  fast-forward: the App may not update main, so passed runs merge one PR at a time through the merge API: ruleset "main" (bypass list: add the App, Always allow)',
    );
    expect(run.code).toBe(1);
  });

  it('fails the queue line with the command that creates it, for a branch without a queue, and refuses a branch that does not exist', async () => {
    fake.refs.set('develop', 'base0');
    const run = await cli.run(['doctor', '--repo', 'acme/widgets', '--branch', 'develop', '--wait', '5s']);
    expect(run.stdout).toContain('FAIL  queue: no queue for acme/widgets develop: create one with mergeq queue create --repo acme/widgets --branch develop\n');
    expect(run.stdout).toContain('skip  required checks: skipped: no queue\n');
    expect(run.stdout.split('\n').filter((l) => l.startsWith('FAIL'))).toHaveLength(1);
    expect(run.code).toBe(1);

    expect(await cli.run(['doctor', '--repo', 'acme/widgets', '--branch', 'nope'])).toMatchObject({ code: 2, stderr: 'mergeq: acme/widgets has no branch nope\n' });
  });

  it('fails the installation line with the permissions missing, and when the App is not installed skips the rest', async () => {
    github.permissions = { ...github.permissions, contents: 'read' };
    expect((await doctor()).line('App installed')).toMatch(/^FAIL {2}App installed: installation 7 lacks contents: write: accept the App's new permissions at https:\/\/github\.com\/organizations\/acme\/settings\/installations\/7/);

    github.installed = false;
    const run = await doctor();
    expect(run.lines[0]).toBe('FAIL  App installed: the App mergeq is not installed on acme/widgets: install it at https://github.com/apps/mergeq/installations/new and choose the repository');
    expect(run.lines.slice(1).every((l) => l.startsWith('skip'))).toBe(true);
    expect(run.code).toBe(1);
  });
});

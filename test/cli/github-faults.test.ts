import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { gitHubUnreachable } from '../../src/cli/github-app/github-reachable.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';
import { cliSandbox, freePort } from './cli-harness.js';

/**
 * `mergeq doctor`, `setup github` and serve's start-up check name what is really wrong between this
 * machine and GitHub, and the fix: a refused connection, a name that does not resolve, a server that
 * is not GitHub, wrong credentials, a clock off. Local servers on 127.0.0.1 and nock; no real network.
 */
const APP = { APP_ID: '1', PRIVATE_KEY: TEST_PRIVATE_KEY, WEBHOOK_SECRET: 's' };
const cli = cliSandbox();
let notGitHub: Server;
let notGitHubUrl: string;

beforeAll(async () => {
  // A web server that is not GitHub's API: a 404 page, as a wrong GITHUB_API_URL meets.
  notGitHub = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'));
  await new Promise<void>((resolve) => notGitHub.listen(0, '127.0.0.1', resolve));
  notGitHubUrl = `http://127.0.0.1:${(notGitHub.address() as AddressInfo).port}`;
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterAll(async () => {
  nock.cleanAll();
  nock.enableNetConnect();
  await new Promise((resolve) => notGitHub.close(resolve));
  cli.cleanup();
});
afterEach(() => nock.cleanAll());

const doctor = (env: Record<string, string>) => cli.run(['doctor', '--repo', 'acme/widgets', '--wait', '1s'], { ...APP, ...env });
const GITHUB_HEADERS = { 'x-github-request-id': 'AB12:3456', 'content-type': 'application/json' };

describe('mergeq doctor names the fault', () => {
  it('connection refused: nothing answers at the address, with what GITHUB_API_URL must be', async () => {
    const port = await freePort();
    const run = await doctor({ GITHUB_API_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `mergeq: cannot check the App: nothing answers at 127.0.0.1:${port} (connection refused): GITHUB_API_URL must be https://api.github.com (unset) or https://<your GitHub Enterprise Server>/api/v3, and it must be reachable from this machine (firewall, proxy)\n`,
    );
    expect(run.stderr).not.toContain('credentials');
  });

  it('DNS: the name does not resolve', async () => {
    nock('https://github.example.invalid').get('/api/v3/app').replyWithError({ code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND github.example.invalid' });
    const run = await doctor({ GITHUB_API_URL: 'https://github.example.invalid/api/v3' });
    expect(run.stderr).toMatch(/^mergeq: cannot check the App: the name github\.example\.invalid does not resolve \(DNS ENOTFOUND\): check the spelling of https:\/\/github\.example\.invalid\/api\/v3/);
  });

  it('a 404 from something that is not GitHub says so, not "credentials"', async () => {
    const run = await doctor({ GITHUB_API_URL: notGitHubUrl });
    expect(run.stderr).toBe(
      `mergeq: cannot check the App: ${notGitHubUrl} answered 404 but is not GitHub's API (no x-github-request-id header): GITHUB_API_URL must be https://api.github.com (unset) or https://<your GitHub Enterprise Server>/api/v3\n`,
    );
  });

  it("wrong credentials: GitHub's 401 names APP_ID and PRIVATE_KEY", async () => {
    nock('https://api.github.com').get('/app').reply(401, { message: 'A JSON web token could not be decoded' }, { ...GITHUB_HEADERS, date: new Date().toUTCString() });
    const run = await doctor({});
    expect(run.stderr).toContain("GitHub refused the App's credentials (401 A JSON web token could not be decoded): APP_ID and PRIVATE_KEY must be the App's");
  });

  it("clock skew: GitHub's Date an hour away is named, with how to fix the clock", async () => {
    const anHourAgo = new Date(Date.now() - 3_600_000).toUTCString();
    // @octokit/auth-app retries once with its clock corrected by GitHub's Date; refused both times here.
    nock('https://api.github.com')
      .get('/app')
      .times(2)
      .reply(401, { message: "'Expiration time' claim ('exp') is too far in the future" }, { ...GITHUB_HEADERS, date: anHourAgo });
    const run = await doctor({});
    expect(run.stderr).toMatch(/^mergeq: cannot check the App: this machine's clock is 36\d\d s ahead of GitHub's, so GitHub refuses the App's tokens \(401 'Expiration time'.*\): set the clock right \(NTP: timedatectl set-ntp true\)\n$/);
  });
});

describe("serve's start-up check", () => {
  it('is silent when GitHub answers, and names the fault when it cannot be reached', async () => {
    nock('https://api.github.com').get('/app').reply(200, { slug: 'mergeq' }, GITHUB_HEADERS);
    const config = { kind: 'github' as const, appId: 1, privateKey: TEST_PRIVATE_KEY, webhookSecret: 's', apiUrl: null };
    expect(await gitHubUnreachable(config)).toBeNull();
    const port = await freePort();
    expect(await gitHubUnreachable({ ...config, apiUrl: `http://127.0.0.1:${port}` })).toMatch(/^nothing answers at 127\.0\.0\.1:\d+ \(connection refused\)/);
  });
});

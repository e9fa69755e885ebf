import { createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import nock from 'nock';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { runCli } from '../../src/cli/run-cli.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';
import { cliSandbox, freePort } from './cli-harness.js';

/** `mergeq setup github` runs GitHub's manifest flow; github.com's conversion answer comes from nock. */
describe('mergeq setup github', () => {
  let cli: ReturnType<typeof cliSandbox>;
  let server: RunningServer | undefined;
  beforeEach(() => {
    cli = cliSandbox();
    nock.enableNetConnect('127.0.0.1');
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    nock.cleanAll();
    nock.enableNetConnect();
    cli.cleanup();
  });

  /** Starts the command and returns its local page once it listens, and the command's end. */
  async function startSetup(args: string[], env: Record<string, string> = {}) {
    const out: string[] = [];
    const err: string[] = [];
    const done = runCli(['setup', 'github', ...args], { stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => err.push(t) }, env: { ...cli.env, ...env } });
    for (let i = 0; i < 200 && !/Open (\S+) in a browser/.test(err.join('')); i++) await new Promise((r) => setTimeout(r, 25));
    const page = /Open (\S+) in a browser/.exec(err.join(''))![1]!;
    return { page, done: done.then((code) => ({ code, stdout: out.join(''), stderr: err.join('') })) };
  }

  function formOf(html: string) {
    const action = /action="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    const manifest = JSON.parse(/name="manifest" value="([^"]+)"/.exec(html)![1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as Record<string, unknown>;
    return { action, state: new URL(action).searchParams.get('state')!, manifest };
  }

  it('posts app.yml to GitHub, stores the converted App 0600, and a restarted server runs the App from it', async () => {
    const setup = await startSetup(['--org', 'acme', '--webhook-url', 'https://mergeq.example.com/api/github/webhooks']);
    const form = formOf(await (await fetch(setup.page)).text());
    expect(form.action).toMatch(/^https:\/\/github\.com\/organizations\/acme\/settings\/apps\/new\?state=[0-9a-f]{32}$/);
    expect(form.manifest).toMatchObject({
      name: 'mergeq',
      hook_attributes: { url: 'https://mergeq.example.com/api/github/webhooks', active: true },
      redirect_url: `${setup.page}callback`,
      default_permissions: expect.objectContaining({ contents: 'write', checks: 'write', administration: 'read' }),
      default_events: expect.arrayContaining(['pull_request', 'check_suite', 'push']),
    });

    const conversion = nock('https://api.github.com')
      .post('/app-manifests/code-123/conversions')
      .reply(201, { id: 4711, slug: 'acme-mergeq', html_url: 'https://github.com/apps/acme-mergeq', pem: TEST_PRIVATE_KEY, webhook_secret: 'whsec', client_id: 'Iv1.x', client_secret: 'cs' });
    const callback = await fetch(`${setup.page}callback?code=code-123&state=${form.state}`);
    expect(callback.status).toBe(200);
    expect(await callback.text()).toContain('https://github.com/apps/acme-mergeq/installations/new');
    const result = await setup.done;
    expect(result.code).toBe(0);
    conversion.done();

    const file = join(cli.dataDir, 'github-app.json');
    expect(result.stdout).toContain(`GitHub App acme-mergeq (id 4711) stored in ${file} (mode 0600): its id, private key and webhook secret; nothing was written to .env.`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ appId: 4711, webhookSecret: 'whsec', privateKey: TEST_PRIVATE_KEY, clientId: 'Iv1.x', clientSecret: 'cs', apiUrl: null });

    const config = loadConfig(cli.env);
    expect(config.gitHost).toMatchObject({ kind: 'github', appId: 4711, webhookSecret: 'whsec', apiUrl: null });
    server = await startServer({ ...config, port: 0, host: '127.0.0.1' }, { logger: pino({ level: 'silent' }) });
    expect(server.gitHostKind).toBe('github');
    const deliver = (secret: string) => {
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      return fetch(`http://127.0.0.1:${server!.port}/api/github/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': `d-${secret}`, 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
        body,
      });
    };
    expect((await deliver('whsec')).status).toBe(200);
    expect((await deliver('another')).status).toBe(400);
  });

  it('lets APP_ID, PRIVATE_KEY and WEBHOOK_SECRET in the environment win over the stored App', async () => {
    const setup = await startSetup([]);
    const { state } = formOf(await (await fetch(setup.page)).text());
    nock('https://api.github.com').post('/app-manifests/c/conversions').reply(201, { id: 4711, slug: 's', html_url: 'https://github.com/apps/s', pem: TEST_PRIVATE_KEY, webhook_secret: 'stored' });
    await fetch(`${setup.page}callback?code=c&state=${state}`);
    expect((await setup.done).code).toBe(0);

    expect(loadConfig({ ...cli.env, WEBHOOK_SECRET: 'from-env' }).gitHost).toMatchObject({ appId: 4711, webhookSecret: 'from-env' });
    expect(loadConfig({ ...cli.env, APP_ID: '9', PRIVATE_KEY: TEST_PRIVATE_KEY, WEBHOOK_SECRET: 'e' }).gitHost).toMatchObject({ appId: 9, webhookSecret: 'e' });
    expect(loadConfig({ ...cli.env, MERGEQ_GITHOST: 'sandbox' }).gitHost).toEqual({ kind: 'sandbox' });
    // A second setup would replace the stored App: only with --force.
    expect(await cli.run(['setup', 'github'])).toMatchObject({ code: 2, stderr: expect.stringContaining('add --force') });
  });

  it('refuses a callback whose state is not the one the page gave, and stores nothing', async () => {
    const setup = await startSetup([]);
    const { state } = formOf(await (await fetch(setup.page)).text());
    expect((await fetch(`${setup.page}callback?code=c&state=forged`)).status).toBe(400);
    nock('https://api.github.com').post('/app-manifests/c/conversions').reply(404, { message: 'Not Found' });
    expect((await fetch(`${setup.page}callback?code=c&state=${state}`)).status).toBe(502);
    const result = await setup.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('404');
    expect(() => statSync(join(cli.dataDir, 'github-app.json'))).toThrow();
  });

  it('names the fault when the code cannot be exchanged: a refused GITHUB_API_URL, not "fetch failed"', async () => {
    const port = await freePort();
    const setup = await startSetup([], { GITHUB_API_URL: `http://127.0.0.1:${port}` });
    const { state } = formOf(await (await fetch(setup.page)).text());
    const page = await fetch(`${setup.page}callback?code=c&state=${state}`);
    expect(page.status).toBe(502);
    expect(await page.text()).toContain(`nothing answers at 127.0.0.1:${port} (connection refused)`);
    const result = await setup.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`mergeq: nothing answers at 127.0.0.1:${port} (connection refused): GITHUB_API_URL must be https://api.github.com (unset)`);
    expect(result.stderr).not.toContain('fetch failed');
  });
});

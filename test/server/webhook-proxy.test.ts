import { createHmac } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { serveFakeGitHub, type FakeGitHubServer } from '../../src/testing/fake-github-server.js';
import { FakeGitHub } from '../../src/testing/fake-github.js';
import { loadConfig } from '../../src/config/load-config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { cliSandbox } from '../cli/cli-harness.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';

const SECRET = 'proxy-secret';

/** A local server speaking smee.io's server-sent events: each GitHub delivery is one `message` event of its headers and body. */
async function fakeSmee(): Promise<{ url: string; connected: Promise<void>; send(event: string, payload: object, secret?: string): void; close(): Promise<void> }> {
  let stream: ServerResponse | undefined;
  let onConnect: () => void = () => undefined;
  const connected = new Promise<void>((resolve) => (onConnect = resolve));
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.write('event: ready\ndata: {}\n\n');
    stream = res;
    onConnect();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let seq = 0;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/channel-abc`,
    connected,
    send(event, payload, secret = SECRET) {
      const body = JSON.stringify(payload);
      const message = {
        'x-github-event': event,
        'x-github-delivery': `proxied-${++seq}`,
        'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
        body: payload,
        query: {},
        timestamp: Date.now(),
      };
      stream!.write(`id: ${seq}\ndata: ${JSON.stringify(message)}\n\n`);
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('WEBHOOK_PROXY_URL', () => {
  let api: FakeGitHubServer;
  let server: RunningServer;
  let smee: Awaited<ReturnType<typeof fakeSmee>>;
  const cli = cliSandbox();

  beforeAll(async () => {
    api = await serveFakeGitHub(new FakeGitHub());
    smee = await fakeSmee();
    Object.assign(cli.env, { APP_ID: '1', PRIVATE_KEY: TEST_PRIVATE_KEY, WEBHOOK_SECRET: SECRET, GITHUB_API_URL: api.url, WEBHOOK_PROXY_URL: smee.url });
    server = await startServer({ ...loadConfig(cli.env), port: 0, host: '0.0.0.0' }, { logger: pino({ level: 'silent' }) });
    await smee.connected;
  });
  afterAll(async () => {
    await server.stop();
    await smee.close();
    await api.close();
    cli.cleanup();
  });

  async function orgOwners(): Promise<string[]> {
    const { stdout } = await cli.run(['org', 'list', '--json']);
    return (JSON.parse(stdout) as { owners: string[] }[]).flatMap((o) => o.owners);
  }

  const installation = (login: string) => ({
    action: 'created',
    installation: { id: 7, account: { login, type: 'Organization' } },
    repositories: [{ name: 'widgets', full_name: `${login}/widgets` }],
    sender: { login: 'admin', type: 'User' },
  });

  it('forwards each event of the channel to the webhook endpoint, which checks its signature before handling it', async () => {
    const host = new URL(api.url).host;
    smee.send('installation', installation('forged'), 'not-the-secret');
    smee.send('installation', installation('acme'));
    for (const until = Date.now() + 10_000; !(await orgOwners()).includes(`${host}/acme`) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 100));
    expect(await orgOwners()).toEqual([`${host}/acme`]);
  });
});

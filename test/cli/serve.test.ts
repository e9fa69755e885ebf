import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Config } from '../../src/config/config.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { TEST_PRIVATE_KEY } from '../githost/github-test-client.js';
import { cliSandbox } from './cli-harness.js';

function logCapture() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  return {
    lines,
    raw,
    logger: pino({ level: 'info' }, { write: (s: string) => (raw.push(s), lines.push(JSON.parse(s))) }),
  };
}

function configFor(dataDir: string, overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    mongodbUri: null,
    logLevel: 'info',
    gitHost: { kind: 'none' },
    warnings: [],
    ...overrides,
  };
}

async function post(base: string, path: string, token: string, body: unknown) {
  const res = await fetch(`${base}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('startServer', () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mergeq-serve-'));
  });
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz on a random port, logs one start-up line, and stops', async () => {
    const log = logCapture();
    server = await startServer(configFor(dataDir), { logger: log.logger });
    const base = `http://127.0.0.1:${server.port}`;

    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect(log.lines.filter((l) => String(l.msg).startsWith('mergeq listening'))).toEqual([
      expect.objectContaining({ port: server.port, host: '127.0.0.1', store: 'sqlite', gitHost: 'none' }),
    ]);

    await server.stop();
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
    expect(log.lines.at(-1)?.msg).toBe('mergeq stopped');
  });

  it('serves the API with a token the CLI created while the server runs (same store)', async () => {
    server = await startServer(configFor(dataDir), { logger: logCapture().logger });
    const base = `http://127.0.0.1:${server.port}`;
    const cli = cliSandbox();
    cli.env.MERGEQ_DATA_DIR = dataDir;
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
    const token = (await cli.run(['token', 'create', '--org', 'acme'])).stdout.trim();

    const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    expect((await post(base, 'createQueue', token, { repo, targetBranch: 'main' })).status).toBe(200);
    const submitted = await post(base, 'submitPullRequest', token, { repo, targetBranch: 'main', pr: { number: 7 } });
    expect(submitted).toMatchObject({ status: 200, body: { prNumber: 7, state: 'NOT_READY' } });
    const queue = await post(base, 'getQueue', token, { repo, targetBranch: 'main' });
    expect(queue.body.enqueuedPullRequests).toEqual([expect.objectContaining({ prNumber: 7 })]);

    expect((await post(base, 'getQueue', 'mq_not-a-token', { repo, targetBranch: 'main' })).status).toBe(401);
    const id = JSON.parse((await cli.run(['token', 'list', '--org', 'acme', '--json'])).stdout)[0].id;
    await cli.run(['token', 'revoke', id]);
    expect((await post(base, 'getQueue', token, { repo, targetBranch: 'main' })).status).toBe(401);
  });

  it('its metrics count the reconciles it ran, per queue (mq_reconcile_duration_seconds)', async () => {
    server = await startServer(configFor(dataDir), { logger: logCapture().logger });
    const base = `http://127.0.0.1:${server.port}`;
    const cli = cliSandbox();
    cli.env.MERGEQ_DATA_DIR = dataDir;
    await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme']);
    const token = (await cli.run(['token', 'create', '--org', 'acme'])).stdout.trim();
    const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    await post(base, 'createQueue', token, { repo, targetBranch: 'main' });
    const count = async () => {
      const text = await (await fetch(`${base}/v1/getMergeQueueMetrics`, { headers: { 'x-api-token': token } })).text();
      return Number(/^mq_reconcile_duration_seconds_count\{repo="acme\/widgets",branch="main",queue_type="main"\} (\d+)$/m.exec(text)?.[1]);
    };
    // Creating the queue and submitting to it each ask the engine for a reconcile, run just after the answer.
    const countAbove = async (floor: number) => {
      for (let i = 0; i < 100 && (await count()) <= floor; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      return count();
    };
    const afterCreate = await countAbove(0);
    expect(afterCreate).toBeGreaterThanOrEqual(1);
    await post(base, 'submitPullRequest', token, { repo, targetBranch: 'main', pr: { number: 7 } });
    expect(await countAbove(afterCreate)).toBeGreaterThan(afterCreate);
  });

  it('never logs the token or the headers that carry it', async () => {
    const log = logCapture();
    server = await startServer(configFor(dataDir), { logger: log.logger });
    const secret = 'mq_this-is-a-secret-token-value';
    await fetch(`http://127.0.0.1:${server.port}/v1/getQueue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': secret, authorization: `Bearer ${secret}` },
      body: '{}',
    });
    await server.stop();
    expect(log.raw.join('')).toContain('"path":"/v1/getQueue"');
    expect(log.raw.join('')).not.toContain('this-is-a-secret');
  });

  it('the sandbox git host mounts its routes at /sandbox, behind the API token and its tenancy', async () => {
    server = await startServer(configFor(dataDir, { gitHost: { kind: 'sandbox' } }), { logger: logCapture().logger });
    const cli = cliSandbox();
    cli.env.MERGEQ_DATA_DIR = dataDir;
    expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
    const token = (await cli.run(['token', 'create', '--org', 'acme'])).stdout.trim();
    cli.cleanup();
    const open = (owner: string, headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${server!.port}/sandbox/pulls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ repo: { host: 'github.com', owner, name: 'widgets' }, title: 'Add a widget' }),
      });

    const anonymous = await open('acme', {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await open('acme', { 'x-api-token': 'mq_not-a-token' })).status).toBe(401);
    expect((await open('globex', { 'x-api-token': token })).status).toBe(403);
    expect((await open('acme', { 'x-api-token': token })).status).toBe(200);
    // Its bodies are read by the API's own reader: UTF-8 JSON only.
    const utf16 = await open('acme', { 'x-api-token': token, 'content-type': 'application/json; charset=utf-16' });
    expect(utf16.status).toBe(415);
    expect(await utf16.json()).toMatchObject({ code: 'unsupported_media_type', errors: [{ path: 'Content-Type' }] });
    expect(server.gitHostKind).toBe('sandbox');
  });

  it('without the sandbox, /sandbox is not there', async () => {
    server = await startServer(configFor(dataDir), { logger: logCapture().logger });
    expect((await fetch(`http://127.0.0.1:${server.port}/sandbox/pulls`)).status).toBe(404);
  });

  it('the github git host serves the App webhooks at /api/github/webhooks, verifying their signature', async () => {
    const github = { kind: 'github' as const, appId: 1, privateKey: TEST_PRIVATE_KEY, webhookSecret: 'shh', apiUrl: null };
    server = await startServer(configFor(dataDir, { gitHost: github }), { logger: logCapture().logger });
    expect(server.gitHostKind).toBe('github');
    const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const deliver = (signature: string) =>
      fetch(`http://127.0.0.1:${server!.port}/api/github/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': 'd-1', 'x-hub-signature-256': signature },
        body,
      });
    const forged = await deliver(`sha256=${createHmac('sha256', 'not-the-secret').update(body).digest('hex')}`);
    expect(forged.status).toBe(400);
    const signed = await deliver(`sha256=${createHmac('sha256', 'shh').update(body).digest('hex')}`);
    expect(signed.status).toBe(200);
    // The API is still there next to it.
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
  });

  it('fails with a clear error when the port is taken', async () => {
    server = await startServer(configFor(dataDir), { logger: logCapture().logger });
    const other = mkdtempSync(join(tmpdir(), 'mergeq-serve-'));
    try {
      await expect(startServer(configFor(other, { port: server.port }), { logger: logCapture().logger })).rejects.toThrow(
        `cannot listen on 127.0.0.1:${server.port}: the address is already in use`,
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});

describe('mergeq serve', () => {
  it('runs until SIGTERM, then stops and exits 0', async () => {
    const cli = cliSandbox();
    const { port } = await startServer(configFor(cli.dataDir), { logger: logCapture().logger }).then(async (s) => {
      const p = s.port; // a port that was just free
      await s.stop();
      return { port: p };
    });
    const before = process.listenerCount('SIGTERM');
    const running = cli.run(['serve'], { MERGEQ_PORT: String(port), MERGEQ_HOST: '127.0.0.1' });
    while (process.listenerCount('SIGTERM') === before) await new Promise((r) => setImmediate(r));

    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    process.emit('SIGTERM', 'SIGTERM');
    const result = await running;
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([`mergeq listening on 127.0.0.1:${port}`, 'mergeq stopped']),
    );
    expect(process.listenerCount('SIGTERM')).toBe(before);
    cli.cleanup();
  });

  it('exits 78 naming the missing variables when MERGEQ_GITHOST=github lacks credentials', async () => {
    const cli = cliSandbox();
    const result = await cli.run(['serve'], { MERGEQ_GITHOST: 'github' });
    expect(result.code).toBe(78);
    expect(result.stderr).toContain('APP_ID is required for the GitHub git host');
    expect(result.stderr).toContain('WEBHOOK_SECRET is required for the GitHub git host');
    cli.cleanup();
  });
});

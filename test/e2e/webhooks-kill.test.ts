import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SQLITE_FILE } from '../../src/store/open.js';
import { cliSandbox, freePort } from '../cli/cli-harness.js';
import { LOOPBACK_NETWORKS, signatureVerifies, WebhookReceiver } from './webhook-receiver.js';

/**
 * kill -9 of `mergeq serve` between transitions and their delivery loses nothing: the real CLI (built
 * into dist/) runs as a child process with the sandbox git host and a SQLite file. The receiver
 * answers 500 until the service is killed; after a restart it gets every event the first process
 * committed, each signed, in order per PR, and nothing that was never committed.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const QUEUE = { repo: REPO, targetBranch: 'main' };

const cli = cliSandbox();
let receiver: WebhookReceiver;
let child: ChildProcess | null = null;
let token = '';

async function serve(): Promise<{ process: ChildProcess; url: string }> {
  const port = await freePort();
  const proc = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'main.js'), 'serve'], {
    env: { PATH: process.env.PATH ?? '', MERGEQ_DATA_DIR: cli.dataDir, MERGEQ_PORT: String(port), MERGEQ_GITHOST: 'sandbox', LOG_LEVEL: 'info', MERGEQ_WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS.join(',') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const port = /mergeq listening on [^:"]+:(\d+)/.exec(out)?.[1];
      if (port) resolve({ process: proc, url: `http://127.0.0.1:${port}` });
    });
    proc.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.once('exit', (code) => reject(new Error(`mergeq serve exited (${code}) before listening:\n${out}`)));
  });
}

async function api(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function outboxEvents(): { id: string; type: string; orderKey: string; seq: number }[] {
  const db = new Database(join(cli.dataDir, SQLITE_FILE));
  try {
    return (db.prepare('SELECT seq, doc FROM outbox_events ORDER BY seq').all() as { seq: number; doc: string }[]).map((r) => ({
      ...(JSON.parse(r.doc) as { id: string; type: string; orderKey: string }),
      seq: r.seq,
    }));
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  expect((await cli.run(['org', 'create', 'acme', '--owner', 'github.com/acme'])).code).toBe(0);
  token = (await cli.run(['token', 'create', '--org', 'acme', '--name', 'e2e'])).stdout.trim();
  receiver = await WebhookReceiver.start();
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await receiver?.close();
  cli.cleanup();
});

test('kill -9 after transitions are committed and before they are delivered loses none of them', async () => {
  receiver.mode = 'fail';
  const first = await serve();
  child = first.process;
  const created = await api(first.url, '/v1/webhooks/create', { url: receiver.url, events: ['*'] });
  const secret = created.secret as string;
  await api(first.url, '/v1/createQueue', QUEUE);
  const pulls: number[] = [];
  for (const title of ['one', 'two']) {
    const res = await fetch(`${first.url}/sandbox/pulls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token },
      body: JSON.stringify({ repo: REPO, title, author: 'dev', bad: false, ciMinutes: 0.05 }),
    });
    pulls.push(((await res.json()) as { number: number }).number);
  }
  for (const n of pulls) await api(first.url, '/v1/submitPullRequest', { ...QUEUE, pr: { number: n } });
  await until('the receiver refused a first delivery', () => receiver.requests.length > 0, 20_000);
  first.process.kill('SIGKILL');
  await new Promise((r) => first.process.once('exit', r));

  const committed = outboxEvents();
  expect(committed.map((e) => e.type)).toEqual(expect.arrayContaining(['queue.created', 'pull_request.submitted']));
  expect(receiver.accepted()).toEqual([]);

  receiver.mode = 'ok';
  const second = await serve();
  child = second.process;
  const acceptedIds = () => new Set(receiver.accepted().map((r) => r.id));
  await until('every committed event was delivered', () => committed.every((e) => acceptedIds().has(e.id)), 60_000);
  second.process.kill('SIGTERM');
  await new Promise((r) => second.process.once('exit', r));

  const all = outboxEvents();
  const seqOf = new Map(all.map((e) => [e.id, e]));
  const accepted = receiver.accepted();
  // Nothing invented: every accepted event is one the store committed; each is signed.
  for (const r of accepted) {
    expect(seqOf.has(r.id)).toBe(true);
    expect(signatureVerifies(secret, r)).toBe(true);
  }
  // In order per PR (and per queue): accepted in the order the store committed them.
  const byKey = new Map<string, number[]>();
  for (const r of accepted) {
    const e = seqOf.get(r.id)!;
    byKey.set(e.orderKey, [...(byKey.get(e.orderKey) ?? []), e.seq]);
  }
  for (const [key, seqs] of byKey) expect({ key, seqs }).toEqual({ key, seqs: [...seqs].sort((a, b) => a - b) });
}, 150_000);

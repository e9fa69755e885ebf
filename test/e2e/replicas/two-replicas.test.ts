import { afterAll, beforeAll, expect, it } from '@jest/globals';
import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { FakeGitHub } from '../../../src/testing/fake-github.js';
import { systemClock } from '../../../src/domain/clock.js';
import { OrgService } from '../../../src/service/access/org-service.js';
import { openStore, SQLITE_FILE } from '../../../src/store/open.js';

/**
 * Two `mergeq serve` processes on one SQLite file, both reaching one fake GitHub over HTTP (each
 * through its own path prefix, so every request says which process made it). Both take API calls
 * and webhooks; the holder of the queue's lease is killed with SIGKILL right after the fake GitHub
 * carried out a merge it asked for, before it could record it.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOADER = pathToFileURL(fileURLToPath(new URL('./ts-loader.mjs', import.meta.url))).href;
const SECRET = 'replicas-webhook-secret';
const LEASE_SECONDS = 3;
const PRS = 4;
/** The merge request after which its maker is killed. */
const KILL_AT_MERGE = 2;

type Replica = 'a' | 'b';

interface Effect {
  replica: Replica;
  route: string;
  /** The process holding the queue's lease when the fake GitHub served the request. */
  holderPid: number | null;
}

let fake: FakeGitHub;
let api: Server;
let apiUrl: string;
let dataDir: string;
let token: string;
const procs = new Map<Replica, { child: ChildProcess; port: number; pid: number }>();
const effects: Effect[] = [];
let killed: { replica: Replica; at: number } | null = null;
let leaseDb: Database.Database | null = null;

/** The pid in the holder id (`host:pid:random`) of the queue's lease, if someone holds it now. */
function holderPid(): number | null {
  leaseDb ??= new Database(join(dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true });
  const row = leaseDb.prepare("SELECT holder, expires_at AS expiresAt FROM leases WHERE name LIKE 'queue:%'").get() as
    | { holder: string; expiresAt: number }
    | undefined;
  if (!row || row.expiresAt <= Date.now()) return null;
  return Number(row.holder.split(':')[1]);
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

/** Test branches built or deleted, merges: the effects only the lease holder may carry out. */
function isEffect(method: string, path: string): boolean {
  return method !== 'GET' && (/\/git\/refs/.test(path) || /\/pulls\/\d+\/merge$/.test(path) || /\/merges$/.test(path));
}

async function serveFake(): Promise<void> {
  let merges = 0;
  api = createServer((req, res) => {
    void readBody(req).then((body) => {
      const url = decodeURIComponent(req.url ?? '/');
      const replica = url.slice(1, 2) as Replica;
      const path = url.slice(2);
      const method = req.method ?? 'GET';
      if (isEffect(method, path)) effects.push({ replica, route: `${method} ${path.split('?')[0]}`, holderPid: holderPid() });
      const [status, data, headers] = fake.handle(method, path, body);
      if (method === 'PUT' && /\/pulls\/\d+\/merge$/.test(path) && status === 200 && ++merges === KILL_AT_MERGE) {
        // Merged on GitHub; its maker dies before it hears so.
        procs.get(replica)!.child.kill('SIGKILL');
        killed = { replica, at: Date.now() };
        req.socket.destroy();
        return;
      }
      const text = data === undefined ? '' : JSON.stringify(data);
      res.writeHead(status, { ...(text ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startReplica(replica: Replica, privateKey: string): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', LOADER, 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      MERGEQ_PORT: String(port),
      MERGEQ_HOST: '127.0.0.1',
      MERGEQ_DATA_DIR: dataDir,
      MERGEQ_RATE_LIMIT: '0',
      MERGEQ_QUEUE_LEASE_SECONDS: String(LEASE_SECONDS),
      APP_ID: '1',
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: SECRET,
      GITHUB_API_URL: `${apiUrl}/${replica}`,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  procs.set(replica, { child, port, pid: child.pid! });
  for (const until = Date.now() + 60_000; ; ) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
    if (ready) return;
    if (child.exitCode !== null || Date.now() > until) throw new Error(`replica ${replica} did not start`);
    await sleep(200);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const alive = (): Replica[] => (['a', 'b'] as const).filter((r) => killed?.replica !== r);
let turn = 0;
/** The replicas take turns answering (the dead one no longer gets anything). */
const next = (): Replica => alive()[turn++ % alive().length]!;
const base = (replica: Replica) => `http://127.0.0.1:${procs.get(replica)!.port}`;

async function deliver(replica: Replica, event: string, payload: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify({ installation: { id: fake.installationId }, repository: fake.repository, ...payload });
  const res = await fetch(`${base(replica)}/api/github/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
    body,
  });
  await res.arrayBuffer();
}

async function call(replica: Replica, op: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base(replica)}/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${op} on ${replica}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

beforeAll(async () => {
  fake = new FakeGitHub();
  for (let n = 1; n <= PRS + 1; n++) fake.openPull(n);
  fake.permissions.set('maintainer', 'write');
  await serveFake();
  dataDir = mkdtempSync(join(tmpdir(), 'mergeq-replicas-'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  await startReplica('a', privateKey);
  await startReplica('b', privateKey);
}, 120_000);

afterAll(async () => {
  for (const { child } of procs.values()) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  leaseDb?.close();
  await new Promise<void>((resolve) => api.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

it('two replicas on one SQLite file: only the lease holder acts, and the survivor takes over a killed holder within the lease time', async () => {
  const repo = { host: new URL(apiUrl).host, owner: fake.owner, name: fake.name };
  const queue = { repo, targetBranch: 'main' };
  await deliver('a', 'installation', {
    action: 'created',
    installation: { id: fake.installationId, account: { login: fake.owner, type: 'Organization' } },
    repositories: [{ name: fake.name, full_name: `${fake.owner}/${fake.name}` }],
    sender: { login: 'admin', type: 'User' },
  });
  const store = await openStore({ dataDir, logger: pino({ level: 'silent' }) });
  // The installation is handled from the webhook inbox just after the answer: its organization follows.
  for (const until = Date.now() + 10_000; !(await store.orgs.findOrgByOwner(`${repo.host}/${fake.owner}`)) && Date.now() < until; ) await sleep(50);
  token = (await new OrgService(store, systemClock).createToken(fake.owner, 'replicas')).token;
  await store.close();
  await call('b', 'createQueue', { ...queue, concurrency: 2 });

  // CI: each test branch passes 300 ms after it is pushed, reported to one replica or the other.
  fake.onBranchPushed = (branch, sha) => {
    if (!branch.startsWith('mergeq/')) return;
    setTimeout(() => {
      const status = { context: 'ci', state: 'success', target_url: null, description: 'passed' };
      fake.setStatus(sha, status);
      void deliver(next(), 'status', { sha, ...status }).catch(() => undefined);
    }, 300);
  };

  // Half the PRs come through the API, half through `/merge` comments, to either replica.
  for (let n = 1; n <= PRS; n++) {
    if (n % 2 === 1) await call(next(), 'submitPullRequest', { ...queue, pr: { number: n } });
    else {
      await deliver(next(), 'issue_comment', {
        action: 'created',
        issue: { number: n, pull_request: { url: `${apiUrl}/repos/${fake.owner}/${fake.name}/pulls/${n}` } },
        comment: { id: 1000 + n, body: '/merge', user: { login: 'maintainer', type: 'User' } },
        sender: { login: 'maintainer', type: 'User' },
      });
    }
  }

  while (!killed) await sleep(50);
  const survivor = alive()[0]!;
  const survivorPid = procs.get(survivor)!.pid;
  // Work keeps coming, to the survivor only: one more PR.
  await call(survivor, 'submitPullRequest', { ...queue, pr: { number: PRS + 1 } });
  let takenOverAfterMs: number | null = null;
  for (const until = Date.now() + 60_000; takenOverAfterMs === null && Date.now() < until; await sleep(20)) {
    if (holderPid() === survivorPid) takenOverAfterMs = Date.now() - killed.at;
  }
  expect(takenOverAfterMs).not.toBeNull();
  expect(takenOverAfterMs!).toBeLessThanOrEqual(LEASE_SECONDS * 1000 + 1_500);

  const all = Array.from({ length: PRS + 1 }, (_, i) => i + 1);
  for (const until = Date.now() + 150_000; fake.merged.length < all.length && Date.now() < until; ) await sleep(200);

  // No lost PR, no double merge: each merged once, recorded as MERGED.
  expect([...fake.merged].sort((x, y) => x - y)).toEqual(all);
  for (const n of all) {
    const record = await call(survivor, 'getSubmittedPullRequest', { ...queue, pr: { number: n } });
    expect([n, record.state]).toEqual([n, 'MERGED']);
  }
  // Every test branch built or deleted and every merge came from the lease holder of that moment.
  const pidOf = (r: Replica) => procs.get(r)!.pid;
  expect(effects.filter((e) => e.holderPid !== pidOf(e.replica))).toEqual([]);
  expect(new Set(effects.map((e) => e.replica))).toEqual(new Set(['a', 'b']));
}, 240_000);

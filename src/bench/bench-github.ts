/**
 * `npm run bench:github`: the real service (`startServer`, SQLite, the GitHub App through probot with
 * its throttling and retries on) against the fake GitHub served over HTTP, with a fake CI that passes
 * every test branch 1 s after it is pushed. 20 PRs get `/merge` at once; it reports, per queue mode,
 * the wall time from the first `/merge` to the last merge and the GitHub writes per merged PR by kind.
 * Everything runs on 127.0.0.1 and stops by itself (10 minutes at most per mode).
 */
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { systemClock } from '../domain/clock.js';
import { startServer } from '../server/start-server.js';
import { OrgService } from '../service/org-service.js';
import { openStore } from '../store/open.js';
import { FakeGitHub, type WriteKind } from './fake-github.js';
import { serveFakeGitHub } from './fake-github-server.js';

const PRS = 20;
const CI_MS = 1_000;
const TIMEOUT_MS = 10 * 60_000;
const SECRET = 'bench-webhook-secret';

interface Mode {
  name: string;
  settings: Record<string, unknown>;
  parallel?: boolean;
}

const MODES: Mode[] = [
  { name: 'single, concurrency 4', settings: { concurrency: 4 } },
  { name: 'single + batching (4)', settings: { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 0 } },
  { name: 'parallel, concurrency 4', settings: { concurrency: 4, mode: 'parallel' }, parallel: true },
];

interface Outcome {
  mode: string;
  merged: number;
  wallSeconds: number;
  writes: Record<WriteKind, number>;
  writesPerMergedPr: number;
}

async function runMode(mode: Mode): Promise<Outcome> {
  const fake = new FakeGitHub();
  for (let n = 1; n <= PRS; n++) fake.openPull(n);
  fake.permissions.set('maintainer', 'write');
  const api = await serveFakeGitHub(fake);
  const dataDir = mkdtempSync(join(tmpdir(), 'mergeq-bench-github-'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const server = await startServer(
    {
      port: 0,
      host: '127.0.0.1',
      dataDir,
      mongodbUri: null,
      logLevel: 'silent',
      gitHost: { kind: 'github', appId: 1, privateKey, webhookSecret: SECRET, apiUrl: api.url },
      warnings: [],
    },
    { logger: pino({ level: 'silent' }) },
  );
  const base = `http://127.0.0.1:${server.port}`;
  const host = new URL(api.url).host;
  const repo = { host, owner: fake.owner, name: fake.name };
  const payloadBase = { installation: { id: fake.installationId }, repository: fake.repository };

  const deliver = async (event: string, payload: Record<string, unknown>) => {
    const body = JSON.stringify({ ...payloadBase, ...payload });
    const res = await fetch(`${base}/api/github/webhooks`, {
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
  };
  const call = async (op: string, token: string, body: unknown) => {
    const res = await fetch(`${base}/v1/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${await res.text()}`);
  };

  try {
    await deliver('installation', {
      action: 'created',
      installation: { id: fake.installationId, account: { login: fake.owner, type: 'Organization' } },
      repositories: [{ name: fake.name, full_name: `${fake.owner}/${fake.name}` }],
      sender: { login: 'admin', type: 'User' },
    });
    const store = await openStore({ dataDir, logger: pino({ level: 'silent' }) });
    // The installation is handled from the webhook inbox just after the answer: its organization follows.
    for (const until = Date.now() + 10_000; !(await store.findOrgByOwner(`${repo.host}/${fake.owner}`)) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    const { token } = await new OrgService(store, systemClock).createToken(fake.owner, 'bench');
    await store.close();
    await call('createQueue', token, { repo, targetBranch: 'main', ...mode.settings });
    if (mode.parallel) {
      for (let n = 1; n <= PRS; n++) await call('setImpactedTargets', token, { repo, targetBranch: 'main', pr: { number: n, sha: `head${n}` }, impactedTargets: [`//lane${n % 4}`] });
    }

    // The fake CI: every test branch passes 1 s after it is pushed, reported by a status webhook.
    fake.onBranchCreated = (branch, sha) => {
      if (!branch.startsWith('mergeq/')) return;
      setTimeout(() => {
        const status = { context: 'ci', state: 'success', target_url: `https://ci.example.com/${sha}`, description: 'passed' };
        fake.setStatus(sha, status);
        void deliver('status', { sha, ...status }).catch(() => undefined);
      }, CI_MS);
    };

    for (const kind of Object.keys(fake.writes) as WriteKind[]) fake.writes[kind] = 0;
    const started = Date.now();
    let commentId = 5000;
    for (let n = 1; n <= PRS; n++) {
      await deliver('issue_comment', {
        action: 'created',
        issue: { number: n, pull_request: { url: `${api.url}/repos/${fake.owner}/${fake.name}/pulls/${n}` } },
        comment: { id: ++commentId, body: '/merge', user: { login: 'maintainer', type: 'User' } },
        sender: { login: 'maintainer', type: 'User' },
      });
    }
    while (fake.merged.length < PRS && Date.now() - started < TIMEOUT_MS) await new Promise((resolve) => setTimeout(resolve, 100));
    const wallSeconds = (Date.now() - started) / 1000;
    // What is said after the last merge (statuses, comments) is part of the cost: wait until GitHub
    // has seen no write for 8 s (2 minutes at most).
    for (let last = -1, quietSince = Date.now(), until = Date.now() + 120_000; Date.now() - quietSince < 8_000 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = fake.totalWrites();
      if (now !== last) [last, quietSince] = [now, Date.now()];
    }
    const writes = { ...fake.writes };
    const total = Object.values(writes).reduce((a, b) => a + b, 0);
    return { mode: mode.name, merged: fake.merged.length, wallSeconds, writes, writesPerMergedPr: fake.merged.length ? total / fake.merged.length : Infinity };
  } finally {
    fake.onBranchCreated = null;
    await server.stop();
    await api.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printTable(outcomes: Outcome[]): void {
  const kinds = Object.keys(outcomes[0]!.writes) as WriteKind[];
  const per = (o: Outcome, k: WriteKind) => (o.merged ? (o.writes[k] / o.merged).toFixed(2) : '-');
  console.log(`\n${PRS} PRs, /merge at once, CI ${CI_MS / 1000} s, probot throttling on\n`);
  console.log(['mode', 'merged', 'wall (s)', 'writes/PR', ...kinds.map((k) => `${k}/PR`)].join(' | '));
  for (const o of outcomes) {
    console.log([o.mode, o.merged, o.wallSeconds.toFixed(0), o.writesPerMergedPr.toFixed(2), ...kinds.map((k) => per(o, k))].join(' | '));
  }
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const outcomes: Outcome[] = [];
for (const mode of MODES) {
  if (only && !mode.name.startsWith(only)) continue;
  process.stderr.write(`running: ${mode.name}\n`);
  outcomes.push(await runMode(mode));
}
printTable(outcomes);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/github.json', `${JSON.stringify({ prs: PRS, ciMs: CI_MS, outcomes }, null, 2)}\n`);

/**
 * `npm run bench:github`: the real service (`startServer`, SQLite, the GitHub App through probot and
 * its write budget at GitHub's limits) against the fake GitHub served over HTTP, which enforces
 * GitHub's content limits (80 writes a minute, 500 an hour: a write over them is refused with 403 and
 * `retry-after`, and does not happen), with a fake CI that passes every test branch a while after it
 * is pushed. Per case it reports the wall time from the first `/merge` to the last merge, the writes
 * per merged PR by kind, the peak writes in any minute, the refused writes, and the ceiling GitHub's
 * 500 writes an hour put on merged PRs an hour at that cost, how long each `/merge` waited for its
 * first word (a 👍, a status or a comment) and how many merged PRs were left with a pending status.
 * Queues merge with `merge_commit` (passed runs fast-forward the target) unless a case says otherwise;
 * a case may scale GitHub's limits down (then the fake and the App's budget both keep the scaled ones).
 * `--only <case prefix>` runs one case; `--full` runs the stacks cases at the size issue 38 names, and
 * `--per-hour N` raises their hourly limit (to tell a landing's cost from GitHub's pacing of it).
 * Everything runs on 127.0.0.1 and stops by itself.
 */
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { systemClock } from '../domain/clock.js';
import { startServer } from '../server/start-server.js';
import { OrgService } from '../service/access/org-service.js';
import { openStore } from '../store/open.js';
import { FakeGitHub, type WriteKind } from '../testing/fake-github.js';
import { serveFakeGitHub } from '../testing/fake-github-server.js';
import { layOut, type StackLayout } from './stack-layout.js';

const SECRET = 'bench-webhook-secret';
const HOUR_LIMIT = 500;

interface Mode {
  name: string;
  settings: Record<string, unknown>;
  parallel?: boolean;
  prs: number;
  ciMs: number;
  /** Between two `/merge` comments (0: all at once). */
  arrivalMs: number;
  timeoutMs: number;
  /** GitHub's limits scaled down (default: 80 a minute, 500 an hour), for the fake and the App's budget alike. */
  limits?: { perMinute: number; perHour: number; hourMs: number };
  /** Stacked PRs among the single ones (`prs` is then the total of PRs); GitHub's own events are delivered. */
  stacks?: StackLayout;
}

// Issue 38 asks for 20 stacks of 2–6 members among 40 singles with 60 s CI: `--full` runs that (about an hour,
// most of it one by one under GitHub's 500 writes an hour). By default the stacks case is scaled to 10 stacks among
// 20 singles and 10 s CI, to run in a few minutes.
const FULL = process.argv.includes('--full');
const STACKS = FULL ? { count: 20, min: 2, max: 6, singles: 40, seed: 38 } : { count: 10, min: 2, max: 6, singles: 20, seed: 38 };
const STACK_CI_MS = FULL ? 60_000 : 10_000;
const STACK_TIMEOUT_MS = (FULL ? 100 : 15) * 60_000;
// `--per-hour N`: the stacks cases with GitHub's hourly limit raised to N (80 a minute kept), to measure
// what a landing costs apart from how the 500 writes an hour pace it.
const PER_HOUR = process.argv.includes('--per-hour') ? Number(process.argv[process.argv.indexOf('--per-hour') + 1]) : null;
const STACK_LIMITS = PER_HOUR ? { limits: { perMinute: 80, perHour: PER_HOUR, hourMs: 3_600_000 } } : {};
const STACK_QUEUE = { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 0 };
function stackPrs(): number {
  const { stacks, singles } = layOut({ ...STACKS, landing: 'unit' });
  return stacks.reduce((sum, st) => sum + st.prs.length, 0) + singles.length;
}

const BURST = { prs: 20, ciMs: 1_000, arrivalMs: 0, timeoutMs: 10 * 60_000 };
const MODES: Mode[] = [
  { name: 'single, concurrency 4', settings: { concurrency: 4 }, ...BURST },
  { name: 'single + batching (4)', settings: { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 0 }, ...BURST },
  { name: 'parallel, concurrency 4', settings: { concurrency: 4, mode: 'parallel' }, parallel: true, ...BURST },
  { name: 'single, concurrency 4, squash', settings: { concurrency: 4, mergeMethod: 'squash' }, ...BURST },
  // 300 PRs an hour for 20 minutes, CI 60 s: GitHub's 500 writes an hour must carry 100 merges.
  {
    name: 'sustained: 300 PRs/h for 20 min, CI 60 s, batching 4',
    settings: { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 },
    prs: 100,
    ciMs: 60_000,
    arrivalMs: 12_000,
    timeoutMs: 40 * 60_000,
  },
  // A busy queue: a /merge every 3 s for 3 minutes, batches of 4, CI 1 s.
  {
    name: 'busy: one /merge every 3 s, batching 4',
    settings: { concurrency: 4, batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 1 },
    prs: 60,
    ciMs: 1_000,
    arrivalMs: 3_000,
    timeoutMs: 15 * 60_000,
  },
  // GitHub's limits scaled down to 20 a minute and 150 in ten minutes: the default squash queue.
  {
    name: 'scaled limits (20/min, 150 per 10 min), squash',
    settings: { concurrency: 4, mergeMethod: 'squash' },
    prs: 40,
    ciMs: 1_000,
    arrivalMs: 3_000,
    timeoutMs: 40 * 60_000,
    limits: { perMinute: 20, perHour: 150, hourMs: 10 * 60_000 },
  },
  // Stacked PRs landed as units (`/merge` on each top member), then the same PRs one by one.
  {
    name: `stacks: ${STACKS.count} stacks as units, ${STACKS.singles} singles, CI ${STACK_CI_MS / 1000} s, batching 4`,
    settings: STACK_QUEUE,
    prs: stackPrs(),
    ciMs: STACK_CI_MS,
    arrivalMs: 0,
    timeoutMs: STACK_TIMEOUT_MS,
    ...STACK_LIMITS,
    stacks: { ...STACKS, landing: 'unit' },
  },
  { name: 'stacks: the same, members one by one, batching 4', settings: STACK_QUEUE, prs: stackPrs(), ciMs: STACK_CI_MS, arrivalMs: 0, timeoutMs: STACK_TIMEOUT_MS, ...STACK_LIMITS, stacks: { ...STACKS, landing: 'oneByOne' } },
];

interface Outcome {
  mode: string;
  prs: number;
  ciSeconds: number;
  merged: number;
  wallSeconds: number;
  writes: Record<WriteKind, number>;
  writesPerMergedPr: number;
  /** Test branches pushed (one per CI run), and per merged PR. */
  ciRuns: number;
  ciRunsPerMergedPr: number;
  /** The stacks case: how many stacks, of how many members, plain or native, and how they landed. */
  stacks?: { count: number; members: number; native: number; singles: number; landing: StackLayout['landing']; stacksFullyMerged: number; retargets: number };
  peakWritesPerMinute: number;
  refusedWrites: number;
  /** 500 ÷ writes per merged PR: merged PRs an hour GitHub's hourly limit allows at this cost. */
  ceilingPrsPerHour: number;
  /** From each PR's `/merge` to its merge, median and 90th percentile. */
  timeInQueueSeconds: { p50: number; p90: number };
  /** From each `/merge` to the first write on its PR (👍, status, comment): the longest, and how many over 60 s. */
  firstWord: { maxSeconds: number; over60s: number };
  /** Merged PRs whose head still has a pending `mergeq (main)` status at the end. */
  pendingLeft: number;
}

async function runMode(mode: Mode): Promise<Outcome> {
  const fake = new FakeGitHub();
  const scaled = mode.limits ?? { perMinute: 80, perHour: HOUR_LIMIT, hourMs: 3_600_000 };
  const limits = fake.limitWrites(scaled.perMinute, scaled.perHour, Date.now, scaled.hourMs);
  const plan = mode.stacks ? layOut(mode.stacks) : null;
  if (plan) {
    for (const st of plan.stacks) {
      if (st.native) fake.openStack(st.prs);
      else fake.openChain(st.prs);
    }
    for (const n of plan.singles) fake.openPull(n);
  } else for (let n = 1; n <= mode.prs; n++) fake.openPull(n);
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
      gitHost: { kind: 'github', appId: 1, privateKey, webhookSecret: SECRET, apiUrl: api.url, ...(mode.limits ? { writeBudget: mode.limits } : {}) },
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
    for (const until = Date.now() + 10_000; !(await store.orgs.findOrgByOwner(`${repo.host}/${fake.owner}`)) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
    const { token } = await new OrgService(store, systemClock).createToken(fake.owner, 'bench');
    await store.close();
    await call('createQueue', token, { repo, targetBranch: 'main', mergeMethod: 'merge_commit', ...mode.settings });
    if (mode.parallel) {
      for (let n = 1; n <= mode.prs; n++) await call('setImpactedTargets', token, { repo, targetBranch: 'main', pr: { number: n, sha: `head${n}` }, impactedTargets: [`//lane${n % 4}`] });
    }

    // GitHub's own events (stacks created, retargets, closes) reach the App as webhooks do.
    let pumping = Promise.resolve();
    const pumpEvents = () =>
      (pumping = pumping.then(async () => {
        for (const { name, payload } of fake.takeWebhooks()) await deliver(name, { ...payload, sender: { login: 'dev', type: 'User' } }).catch(() => undefined);
      }));
    if (plan) await pumpEvents();
    const pump = plan ? setInterval(() => void pumpEvents(), 200) : null;

    let ciRuns = 0;
    // The fake CI: every test branch passes a while after it is pushed, reported by a status webhook.
    fake.onBranchPushed = (branch, sha) => {
      if (!branch.startsWith('mergeq/')) return;
      ciRuns++;
      setTimeout(() => {
        const status = { context: 'ci', state: 'success', target_url: `https://ci.example.com/${sha}`, description: 'passed' };
        fake.setStatus(sha, status);
        void deliver('status', { sha, ...status }).catch(() => undefined);
      }, mode.ciMs);
    };

    for (const kind of Object.keys(fake.writes) as WriteKind[]) fake.writes[kind] = 0;
    const started = Date.now();
    const submittedAt = new Map<number, number>();
    const mergedAt = new Map<number, number>();
    const watch = setInterval(() => {
      for (const n of fake.merged) if (!mergedAt.has(n)) mergedAt.set(n, Date.now());
    }, 100);
    let commentId = 5000;
    const commentOf = new Map<number, number>();
    /** `/merge` on PR `n`, which queues the PRs `with` (the members below it, and itself) from now. */
    const merge = async (n: number, with_: number[] = [n]) => {
      commentOf.set(n, commentId + 1);
      for (const m of with_) submittedAt.set(m, Date.now());
      await deliver('issue_comment', {
        action: 'created',
        issue: { number: n, pull_request: { url: `${api.url}/repos/${fake.owner}/${fake.name}/pulls/${n}` } },
        comment: { id: ++commentId, body: '/merge', user: { login: 'maintainer', type: 'User' } },
        sender: { login: 'maintainer', type: 'User' },
      });
    };
    if (plan) {
      const oneByOne = mode.stacks!.landing === 'oneByOne';
      for (const unit of plan.order) {
        if (oneByOne) await merge(unit[0]!);
        else await merge(unit[unit.length - 1]!, unit);
      }
      // One by one: each member's `/merge` once the member below merged (and GitHub's events about it were delivered).
      const waiting = oneByOne ? plan.stacks.map((st) => st.prs.slice(1)) : [];
      let reported = Date.now();
      // A case whose merges stop for 60 s (or three CI runs) ends there, and says which PRs are left; not
      // while the hour's writes are (nearly) spent: then the App's writes wait for the hour to free slots.
      const stallMs = Math.max(60_000, 3 * mode.ciMs);
      let lastMerge = [fake.merged.length, Date.now()] as const;
      while (fake.merged.length < mode.prs && Date.now() - started < mode.timeoutMs) {
        if (fake.merged.length !== lastMerge[0]) lastMerge = [fake.merged.length, Date.now()];
        else if (limits.inLastHour() >= 0.9 * scaled.perHour) lastMerge = [fake.merged.length, Date.now()];
        else if (Date.now() - lastMerge[1] > stallMs) {
          const left = [...fake.pulls.keys()].filter((n) => n < 1000 && !fake.merged.includes(n));
          process.stderr.write(`  stalled: no merge for ${stallMs / 1000} s; not merged: ${left.join(', ')}\n`);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
        await pumpEvents();
        if (Date.now() - reported > 15_000) {
          reported = Date.now();
          process.stderr.write(`  ${((reported - started) / 1000).toFixed(0)} s: ${fake.merged.length}/${mode.prs} merged, ${ciRuns} CI runs, ${fake.totalWrites()} writes\n`);
        }
        for (const rest of waiting) {
          const next = rest[0];
          if (next !== undefined && fake.merged.includes(next - 1)) {
            rest.shift();
            await merge(next);
          }
        }
      }
    } else {
      for (let n = 1; n <= mode.prs; n++) {
        if (mode.arrivalMs > 0 && n > 1) await new Promise((resolve) => setTimeout(resolve, mode.arrivalMs));
        await merge(n);
      }
      while (fake.merged.length < mode.prs && Date.now() - started < mode.timeoutMs) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wallSeconds = (Date.now() - started) / 1000;
    clearInterval(watch);
    for (const n of fake.merged) if (!mergedAt.has(n)) mergedAt.set(n, Date.now());
    // What is said after the last merge (statuses, comments) is part of the cost: wait until GitHub
    // has seen no write for 8 s (2 minutes at most).
    for (let last = -1, quietSince = Date.now(), until = Date.now() + 120_000; Date.now() - quietSince < 8_000 && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const now = fake.totalWrites();
      if (now !== last) [last, quietSince] = [now, Date.now()];
    }
    const writes = { ...fake.writes };
    const total = Object.values(writes).reduce((a, b) => a + b, 0);
    const merged = fake.merged.length;
    const writesPerMergedPr = merged ? total / merged : Infinity;
    const inQueue = [...mergedAt].map(([n, at]) => (at - submittedAt.get(n)!) / 1000).sort((a, b) => a - b);
    const quantile = (q: number) => (inQueue.length ? inQueue[Math.min(inQueue.length - 1, Math.floor(q * inQueue.length))]! : NaN);
    if (pump) clearInterval(pump);
    await pumping;
    const firstWordSeconds = [...commentOf.keys()].map((n) => {
      const at = submittedAt.get(n)!;
      const paths = [`/issues/comments/${commentOf.get(n)}/reactions`, `/statuses/head${n}`, `/issues/${n}/comments`];
      const first = fake.requests.find((r) => r.method === 'POST' && paths.includes(r.path) && r.at >= at);
      return ((first?.at ?? Date.now()) - at) / 1000;
    });
    const pendingLeft = fake.merged.filter((n) => fake.statuses.get(`head${n}`)?.find((st) => st.context === 'mergeq (main)')?.state === 'pending').length;
    return {
      mode: mode.name,
      prs: mode.prs,
      ciSeconds: mode.ciMs / 1000,
      merged,
      wallSeconds,
      writes,
      writesPerMergedPr,
      ciRuns,
      ciRunsPerMergedPr: merged ? ciRuns / merged : Infinity,
      ...(plan
        ? {
            stacks: {
              count: plan.stacks.length,
              members: plan.stacks.reduce((sum, st) => sum + st.prs.length, 0),
              native: plan.stacks.filter((st) => st.native).length,
              singles: plan.singles.length,
              landing: mode.stacks!.landing,
              stacksFullyMerged: plan.stacks.filter((st) => st.prs.every((n) => fake.merged.includes(n))).length,
              retargets: fake.requests.filter((r) => r.method === 'PATCH' && /^\/pulls\/\d+$/.test(r.path)).length,
            },
          }
        : {}),
      peakWritesPerMinute: limits.peakPerMinute,
      refusedWrites: limits.refused,
      ceilingPrsPerHour: Math.floor(HOUR_LIMIT / writesPerMergedPr),
      timeInQueueSeconds: { p50: quantile(0.5), p90: quantile(0.9) },
      firstWord: { maxSeconds: Math.max(...firstWordSeconds), over60s: firstWordSeconds.filter((sec) => sec > 60).length },
      pendingLeft,
    };
  } finally {
    fake.onBranchPushed = null;
    await server.stop();
    await api.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printTable(outcomes: Outcome[]): void {
  const kinds = Object.keys(outcomes[0]!.writes) as WriteKind[];
  const per = (o: Outcome, k: WriteKind) => (o.merged ? (o.writes[k] / o.merged).toFixed(2) : '-');
  console.log("\nGitHub's content limits on (80 writes a minute, 500 an hour, unless a case scales them down); the App's write budget at the same limits\n");
  const head = ['case', 'PRs', 'CI (s)', 'merged', 'wall (s)', 'in queue p50/p90 (s)', 'CI runs', 'CI runs/PR', 'writes/PR', ...kinds.map((k) => `${k}/PR`), 'peak/min', 'refused', 'ceiling (PRs/h)', 'first word max (s)', '/merge unanswered 60 s', 'pending left'];
  console.log(head.join(' | '));
  for (const o of outcomes) {
    const row = [o.mode, o.prs, o.ciSeconds, o.merged, o.wallSeconds.toFixed(0), `${o.timeInQueueSeconds.p50.toFixed(0)}/${o.timeInQueueSeconds.p90.toFixed(0)}`, o.ciRuns, o.ciRunsPerMergedPr.toFixed(2), o.writesPerMergedPr.toFixed(2)];
    console.log([...row, ...kinds.map((k) => per(o, k)), o.peakWritesPerMinute, o.refusedWrites, o.ceilingPrsPerHour, o.firstWord.maxSeconds.toFixed(1), o.firstWord.over60s, o.pendingLeft].join(' | '));
  }
  for (const o of outcomes) {
    if (!o.stacks) continue;
    const st = o.stacks;
    console.log(`${o.mode}: ${st.count} stacks (${st.members} members, ${st.native} native, ${st.count - st.native} plain chains) among ${st.singles} singles; stacks fully merged ${st.stacksFullyMerged}/${st.count}; CI runs ${o.ciRuns} for ${o.merged} merged PRs; ${st.retargets} retargets`);
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
const resultsFile = `bench/results/github${FULL ? '-full' : ''}${PER_HOUR ? `-h${PER_HOUR}` : ''}${only ? `-${only.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '')}` : ''}.json`;
writeFileSync(resultsFile, `${JSON.stringify({ limits: { perMinute: 80, perHour: HOUR_LIMIT }, outcomes }, null, 2)}\n`);

import type { RssReport } from './ipc.js';
import { BENCH_BRANCHES, BENCH_REPO } from './ipc.js';
import { runLoad, type LoadResult, type LoadSpec } from './load.js';
import type { MeasuredCase } from './api-report.js';
import { ServerProcess } from './server-process.js';
import type { TargetListBody } from './target-list-body.js';

export interface CaseSettings {
  /** Seconds of load per throughput case, split evenly over the rounds. */
  durationSec: number;
  warmupSec: number;
  connections: number;
  /** Requests with a 20 MiB body per server (split over the rounds), and how many at once. */
  bigRequests: number;
  bigConnections: number;
  /** Every case runs once per round, baseline and service alternating, so drift hits both alike. */
  rounds: number;
  queuedPrs: number;
  resubmitPrs: number;
}

export interface Measurement {
  cases: MeasuredCase[];
  rss: { mergeq: RssReport; baseline: RssReport };
}

export const BASELINE_GET = 'baseline GET (hello world)';
export const BASELINE_POST = 'baseline POST JSON echo (small body)';
export const BASELINE_BIG = 'baseline POST 20 MiB JSON (parse, count)';

const TIMEOUT_SEC = 60;
const JSON_TYPE = { 'content-type': 'application/json' };

type Spec = Omit<LoadSpec, 'connections' | 'durationSec' | 'amount' | 'timeoutSec'>;

interface CaseDef {
  name: string;
  baseline: string;
  spec: Spec;
  /** Known after the case ran (e.g. how far a queue grew). */
  note?: () => Promise<string> | string;
}

/**
 * Both servers run at once, each in its own process; only the one under load uses CPU. Cases run in
 * rounds (baseline, then the service's cases), and the figures of all rounds are pooled.
 */
export async function measureAll(s: CaseSettings, bodies: { small: string; big: TargetListBody }): Promise<Measurement> {
  const baseline = await ServerProcess.start('baseline');
  let mergeq: ServerProcess | null = null;
  try {
    mergeq = await ServerProcess.start('mergeq', [String(s.queuedPrs), String(s.resubmitPrs)]);
    return await measureWith(baseline, mergeq, s, bodies);
  } finally {
    await mergeq?.stop();
    await baseline.stop();
  }
}

async function measureWith(
  baseline: ServerProcess,
  mergeq: ServerProcess,
  s: CaseSettings,
  bodies: { small: string; big: TargetListBody },
): Promise<Measurement> {
  const token = mergeq.fixture!.token;
  const op = (name: string): Spec => ({ url: mergeq.url, method: 'POST', path: `/v1/${name}`, headers: { ...JSON_TYPE, 'x-api-token': token } });
  const queueDepth = async (branch: string) =>
    ((await call(mergeq.url, token, 'getQueue', { repo: BENCH_REPO, targetBranch: branch, page_query: { page_size: 1 } })) as { page: { total_rows: number } })
      .page.total_rows;
  const depth = await queueDepth(BENCH_BRANCHES.getQueue);
  if (depth !== s.queuedPrs) throw new Error(`getQueue lists ${depth} PRs, expected ${s.queuedPrs}`);

  let newPr = 0;
  let again = 0;
  const throughputCases: CaseDef[] = [
    { name: BASELINE_GET, baseline: BASELINE_GET, spec: { url: baseline.url, method: 'GET', path: '/hello' } },
    { name: BASELINE_POST, baseline: BASELINE_POST, spec: { url: baseline.url, method: 'POST', path: '/echo', headers: JSON_TYPE, body: bodies.small } },
    {
      name: 'submitPullRequest (new PR each request)',
      baseline: BASELINE_POST,
      spec: {
        ...op('submitPullRequest'),
        nextBody: () => JSON.stringify({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.submitNew, pr: { number: ++newPr } }),
      },
      note: async () =>
        `a distinct PR number per request; the queue grew from 0 to ${await queueDepth(BENCH_BRANCHES.submitNew)} entries (warm-up included)`,
    },
    {
      name: 'submitPullRequest (re-submit, idempotent)',
      baseline: BASELINE_POST,
      spec: {
        ...op('submitPullRequest'),
        nextBody: () => JSON.stringify({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.resubmit, pr: { number: (again++ % s.resubmitPrs) + 1 } }),
      },
      note: () => `re-submits PRs 1..${s.resubmitPrs} of a queue holding them (200 with the current record, no write)`,
    },
    {
      name: `getQueue (${s.queuedPrs} PRs enqueued)`,
      baseline: BASELINE_POST,
      spec: { ...op('getQueue'), body: JSON.stringify({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.getQueue }) },
    },
    {
      name: `getQueue (${s.queuedPrs} PRs enqueued, first page of 100)`,
      baseline: BASELINE_POST,
      spec: {
        ...op('getQueue'),
        body: JSON.stringify({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.getQueue, page_query: { page_size: 100 } }),
      },
    },
  ];
  const bigCases: CaseDef[] = [
    {
      name: BASELINE_BIG,
      baseline: BASELINE_BIG,
      spec: { url: baseline.url, method: 'POST', path: '/count', headers: JSON_TYPE, body: bodies.big.body },
      note: () => `${bodies.big.targets} names, ${bodies.big.body.length} bytes`,
    },
    {
      name: 'setImpactedTargets (20 MiB list)',
      baseline: BASELINE_BIG,
      spec: { ...op('setImpactedTargets'), body: bodies.big.body },
      note: () => `${s.bigRequests} requests, ${s.bigConnections} at a time; the same body, for a PR not yet submitted`,
    },
  ];

  const load = (spec: Spec, opts: { durationSec: number } | { amount: number; connections: number }) =>
    runLoad({ ...spec, connections: s.connections, timeoutSec: TIMEOUT_SEC, ...opts });

  for (const c of throughputCases) if (s.warmupSec > 0) await load(c.spec, { durationSec: s.warmupSec });
  const throughputRuns = await inRounds(throughputCases, s.rounds, (c) => load(c.spec, { durationSec: s.durationSec / s.rounds }));

  for (const c of bigCases) await load(c.spec, { amount: 1, connections: 1 });
  await Promise.all([baseline.startRss(), mergeq.startRss()]);
  const bigRounds = Math.min(s.rounds, s.bigRequests);
  const bigRuns = await inRounds(bigCases, bigRounds, (c, round) =>
    load(c.spec, { amount: share(s.bigRequests, bigRounds, round), connections: s.bigConnections }),
  );
  const [baselineRss, mergeqRss] = await Promise.all([baseline.stopRss(), mergeq.stopRss()]);

  const cases: MeasuredCase[] = [];
  for (const c of [...throughputCases, ...bigCases]) {
    const runs = throughputRuns.get(c.name) ?? bigRuns.get(c.name)!;
    cases.push({ name: c.name, baseline: c.baseline, runs, ...(c.note ? { note: await c.note() } : {}) });
  }
  return { cases, rss: { mergeq: mergeqRss, baseline: baselineRss } };
}

/** Runs every case once per round, in order; answers each case's runs by round. */
async function inRounds(cases: CaseDef[], rounds: number, run: (c: CaseDef, round: number) => Promise<LoadResult>): Promise<Map<string, LoadResult[]>> {
  const runs = new Map<string, LoadResult[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) runs.get(c.name)!.push(await run(c, round));
  }
  return runs;
}

/** Round `round`'s part of `total` requests split over `rounds` (the first rounds take the remainder). */
function share(total: number, rounds: number, round: number): number {
  return Math.floor(total / rounds) + (round < total % rounds ? 1 : 0);
}

async function call(url: string, token: string, op: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/v1/${op}`, {
    method: 'POST',
    headers: { ...JSON_TYPE, 'x-api-token': token },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${op} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

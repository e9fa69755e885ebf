import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { nonNegative, positive, positiveInt } from './option-numbers.js';
import { bodyLimitOf } from '../http/body/body-limits.js';
import { measureAll, type CaseSettings } from './api-cases.js';
import { buildReport, formatReport } from './api-report.js';
import { BENCH_BRANCHES, BENCH_REPO } from './ipc.js';
import { targetListBody } from './target-list-body.js';

/**
 * `npm run bench:api [-- --duration 5 --connections 10 ...]` (benchmarks.md §2): an express hello
 * world and the service's operations, each server in its own process on 127.0.0.1, loaded by
 * autocannon from this one. Prints a table and writes bench/results/api.json.
 */
const DEFAULT_JSON = fileURLToPath(new URL('../../bench/results/api.json', import.meta.url));

const program = new Command()
  .name('bench-api')
  .option('--duration <s>', 'seconds of load per throughput case (split over the rounds)', positive, 5)
  .option('--rounds <n>', 'rounds alternating baseline and service; ratios are medians over rounds', positiveInt, 3)
  .option('--warmup <s>', 'seconds of discarded load before each throughput case', nonNegative, 1)
  .option('--connections <n>', 'concurrent connections for throughput cases', positiveInt, 10)
  .option('--big-requests <n>', 'requests with a 20 MiB body per server', positiveInt, 20)
  .option('--big-connections <n>', 'concurrent connections sending 20 MiB bodies', positiveInt, 1)
  .option('--queued-prs <n>', 'PRs enqueued in the queue that getQueue reads', positiveInt, 1000)
  .option('--resubmit-prs <n>', 'PRs in the queue that the re-submit case cycles through', positiveInt, 100)
  .option('--json <file>', 'where to write the results', DEFAULT_JSON)
  .parse();

const opts = program.opts<{
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  bigRequests: number;
  bigConnections: number;
  queuedPrs: number;
  resubmitPrs: number;
  json: string;
}>();
const settings: CaseSettings = {
  durationSec: opts.duration,
  rounds: opts.rounds,
  warmupSec: opts.warmup,
  connections: opts.connections,
  bigRequests: opts.bigRequests,
  bigConnections: opts.bigConnections,
  queuedPrs: opts.queuedPrs,
  resubmitPrs: opts.resubmitPrs,
};

const started = performance.now();
const small = JSON.stringify({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.submitNew, pr: { number: 1 } });
const big = targetListBody({ repo: BENCH_REPO, targetBranch: BENCH_BRANCHES.targets, prNumber: 1, sha: 'a'.repeat(40), maxBytes: bodyLimitOf('/setImpactedTargets') });
console.log(
  `bench:api: ${settings.durationSec} s per case in ${settings.rounds} rounds after ${settings.warmupSec} s warm-up, ` +
    `${settings.connections} connections; ${settings.bigRequests} bodies of ${(big.body.length / 2 ** 20).toFixed(2)} MiB per server ` +
    `at ${settings.bigConnections} a time; express baseline and mergeq (SQLite store, token auth) each in its own process`,
);

const measured = await measureAll(settings, { small, big });
const report = buildReport(measured.cases, measured.rss, { ...settings });
console.log(`\n${formatReport(report)}\n`);

mkdirSync(dirname(opts.json), { recursive: true });
writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
console.log(`wrote ${opts.json} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const failed = report.cases.filter((c) => c.non2xx > 0 || c.errors > 0);
if (failed.length > 0) {
  console.error(`\nNOT VALID: ${failed.map((c) => `${c.name} (${c.non2xx} non-2xx, ${c.errors} errors)`).join('; ')}`);
  process.exitCode = 1;
}

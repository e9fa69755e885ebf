import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { positive, positiveInt } from './option-numbers.js';
import { runBand } from './depth-band.js';
import { bandReport, checkTargets, formatReport, type BandReport } from './depth-report.js';

/**
 * `npm run bench:depth [-- --depths 100,1000 ...]`: the service at queue depth. For each depth, a fresh
 * `mergeq serve` (SQLite, sandbox git host) in a child process; a paused queue filled with that many
 * PRs through submitPullRequest, then resumed and drained by the sandbox CI. Prints a table and
 * writes bench/results/depth.json.
 */
const DEFAULT_JSON = fileURLToPath(new URL('../../bench/results/depth.json', import.meta.url));

const program = new Command()
  .name('bench-depth')
  .option('--depths <list>', 'queue depths to fill and drain, comma-separated', depthList, [100, 1000, 5000])
  .option('--concurrency <n>', 'queue concurrency (runs in flight)', positiveInt, 25)
  .option('--ci-seconds <s>', "the sandbox CI's duration of every run", positive, 3)
  .option('--drain-limit <s>', 'stop a drain after this many seconds and report the partial rate', positive, 1800)
  .option('--fill-limit <s>', 'stop filling a queue after this many seconds and drain it at the depth reached', positive, 3600)
  .option('--json <file>', 'where to write the results', DEFAULT_JSON)
  .parse();

const opts = program.opts<{ depths: number[]; concurrency: number; ciSeconds: number; drainLimit: number; fillLimit: number; json: string }>();
const started = performance.now();
console.log(
  `bench:depth: depths ${opts.depths.join(', ')}; concurrency ${opts.concurrency}, CI ${opts.ciSeconds} s per run ` +
    `(allowance ${((opts.concurrency * 60) / opts.ciSeconds).toFixed(0)} merges/min); drain limit ${opts.drainLimit} s; ` +
    'mergeq serve (SQLite, sandbox host) in a child process, one fresh server per depth',
);

const bands: BandReport[] = [];
for (const depth of opts.depths) {
  const bandStarted = performance.now();
  const measures = await runBand(
    { depth, concurrency: opts.concurrency, ciSeconds: opts.ciSeconds, drainLimitSeconds: opts.drainLimit, fillLimitSeconds: opts.fillLimit },
    (line) => console.log(line),
  );
  const report = bandReport(measures);
  bands.push(report);
  writeResults(); // after every band: an interrupted run keeps the bands it finished
  console.log(
    `  depth ${depth}: submit p50 at depth ${report.submit.atDepthP50Ms.toFixed(2)} ms; ${report.drain.merged} merged in ` +
      `${report.drain.seconds.toFixed(1)} s (${((performance.now() - bandStarted) / 1000).toFixed(0)} s for the band; ` +
      `load average ${report.loadAverage.start.toFixed(1)} → ${report.loadAverage.end.toFixed(1)}; ` +
      `${report.drain.pollTimeouts} calls the server could not take during the drain, sent again)`,
  );
}

console.log(`\n${formatReport(bands, checkTargets(bands))}\n`);
console.log(`wrote ${opts.json} in ${((performance.now() - started) / 1000).toFixed(0)} s`);

function writeResults(): void {
  const settings = { concurrency: opts.concurrency, ciSeconds: opts.ciSeconds, drainLimitSeconds: opts.drainLimit, fillLimitSeconds: opts.fillLimit };
  mkdirSync(dirname(opts.json), { recursive: true });
  writeFileSync(opts.json, `${JSON.stringify({ settings, bands, targets: checkTargets(bands) }, null, 2)}\n`);
}

function depthList(v: string): number[] {
  const depths = v.split(',').map((s) => Number(s.trim()));
  if (depths.length === 0 || depths.some((n) => !Number.isInteger(n) || n < 1 || n > 100_000)) {
    throw new InvalidArgumentError('expected comma-separated integers from 1 to 100000, e.g. 100,1000');
  }
  return depths;
}

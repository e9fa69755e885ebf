import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { FailureTiming } from '../githost/sandbox/ci.js';
import { runBenchmark } from './benchmark.js';
import { recommend } from './recommend.js';
import { SCENARIOS } from './scenario.js';
import { parseSeedRange, summarizeSeeds } from './seed-summary.js';
import { defaultStrategies, stormStrategies } from './strategies.js';
import { describeSettings, formatSeedTable, formatTable, formatVerdictShares, formatWaste } from './table.js';
import { formatEtaErrors } from './eta-table.js';
import { benchStacks } from './stack-bench-cli.js';

/**
 * `npm run bench:queue -- --scenario s20 [--seed N | --seeds A-B] [--json FILE] [--recommend] [--prs N]`
 * Queue efficiency (benchmarks.md): the oracle, serial and the best single-mode settings, simulated
 * over the real planner and engine. `--scenario stacks [--stacks N]`: stacked PRs landed as one unit
 * against one by one. `--scenario storm`: a chronically failing head, with and without the restart
 * budgets and `stormPause`, and the CI runs each wasted.
 */
const program = new Command()
  .name('bench-queue')
  .option('--scenario <name>', `one of ${Object.keys(SCENARIOS).join(', ')}, stacks`, 's20')
  .option('--stacks <n>', 'scenario stacks: simulate this many stacks (default 100)', positiveInt)
  .option('--stacks-per-hour <r>', 'scenario stacks: arrival rate of the stacks (default 5)', positive)
  .option('--seed <n>', 'random seed', int, 1)
  .option('--seeds <A-B>', 'run every seed from A to B and print each strategy\'s median and range (default JSON bench/results/queue-<scenario>-seeds.json)', seeds)
  .option('--json <file>', 'where to write the results (default bench/results/queue-<scenario>.json)')
  .option('--prs <n>', 'simulate only the first N PRs of the scenario (quick runs)', int)
  .option('--only <names>', 'run only these strategies (comma-separated; oracle and oracle+flakes always run)')
  .option('--recommend', 'search single-mode settings for the scenario and print the best few')
  .option('--no-test-model', 'runs flake as a whole and upload no test results (the behaviour and figures before test-level results)')
  .option('--tick <minutes>', 'virtual minutes per simulation tick (default 1): a queue sees events at the end of their tick', positive)
  .addOption(
    new Option('--failure-timing <when>', 'when a failing CI run reports: at the end of its duration, or at a uniformly drawn share of it')
      .choices(['end', 'uniform']),
  )
  .parse();

const opts = program.opts<{
  scenario: string;
  seed: number;
  seeds?: number[];
  json?: string;
  prs?: number;
  only?: string;
  recommend?: boolean;
  failureTiming?: FailureTiming;
  tick?: number;
  testModel: boolean;
  stacks?: number;
  stacksPerHour?: number;
}>();
if (opts.scenario === 'stacks') {
  await benchStacks(opts, writeResults);
  process.exit(0);
}
const base = SCENARIOS[opts.scenario];
if (!base) {
  console.error(`unknown scenario ${opts.scenario}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  process.exit(2);
}
const scenario = { ...base, ...(opts.prs ? { prs: Math.min(base.prs, opts.prs) } : {}), ...(opts.failureTiming ? { failureTiming: opts.failureTiming } : {}), ...(opts.tick ? { tickMinutes: opts.tick } : {}), ...(opts.testModel ? {} : { testModel: null }) };
console.log(
  `scenario ${scenario.name}: ${scenario.prs} PRs at ${scenario.prsPerHour}/h, CI ${describeCi()}, ` +
    `${scenario.badRate * 100}% bad, ${scenario.flakeRate * 100}% flaky runs ` +
    (scenario.testModel ? `(from ${scenario.testModel.flakyTests} flaky tests of ${scenario.testModel.flakyTests + scenario.testModel.steadyTests}, results uploaded)` : '(no test model)') +
    `, failing runs report at ` +
    `${scenario.failureTiming === 'end' ? 'the end' : 'a uniform share'} of their duration, ${scenario.tickMinutes}-minute ticks, ` +
    (opts.seeds ? `seeds ${opts.seeds[0]}–${opts.seeds[opts.seeds.length - 1]}` : `seed ${opts.seed}`),
);
const only = opts.only?.split(',').map((n) => n.trim());
const strategies = (scenario.chronic ? stormStrategies(scenario) : defaultStrategies(scenario)).filter((st) => !only || only.includes(st.name));

if (opts.seeds) {
  const perSeed = [];
  for (const seed of opts.seeds) {
    const result = await runBenchmark(scenario, strategies, seed);
    console.error(`  seed ${seed} done`);
    perSeed.push({ seed, strategies: result.strategies });
  }
  const summary = summarizeSeeds(perSeed.map((r) => r.strategies));
  console.log(formatSeedTable(summary));
  console.log(formatEtaErrors(perSeed.map((r) => r.strategies)));
  for (const st of strategies) console.log(`${st.name}: ${describeSettings(st.settings)}`);
  const { name, ...parameters } = scenario;
  writeResults(opts.json ?? `bench/results/queue-${scenario.name}-seeds.json`, { scenario: { name, ...parameters, seeds: opts.seeds }, summary, perSeed });
} else if (opts.recommend) {
  const best = await recommend(scenario, opts.seed, {
    onProgress: (r, phase) => process.stdout.write(phase === 'search' ? '.' : `\n${r.name} on the full scenario done`),
  });
  console.log('\n\nBest single-mode settings (full scenario):');
  console.log(formatTable(best));
  for (const r of best) console.log(`${r.name}: ${describeSettings(r.settings)}`);
} else {
  const result = await runBenchmark(scenario, strategies, opts.seed, (r) =>
    console.error(`  ${r.name} done${r.extra.wallSeconds === undefined ? '' : ` in ${r.extra.wallSeconds}s`}`),
  );
  console.log(formatTable(result.strategies));
  console.log(formatVerdictShares(result.strategies));
  if (scenario.chronic) console.log(formatWaste(result.strategies));
  console.log(formatEtaErrors([result.strategies]));
  for (const r of result.strategies) if (r.settings) console.log(`${r.name}: ${describeSettings(r.settings)}`);
  const { name, ...parameters } = result.scenario;
  writeResults(opts.json ?? `bench/results/queue-${scenario.name}.json`, { scenario: { name, ...parameters }, strategies: result.strategies });
}

function writeResults(file: string, content: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`);
  console.log(`results written to ${file}`);
}

function describeCi(): string {
  const d = scenario!.ciDuration;
  return d.kind === 'fixed' ? `${d.minutes} min` : `log-normal median ${d.medianMinutes} min, p90 ${d.p90Minutes} min`;
}

function seeds(value: string): number[] {
  try {
    return parseSeedRange(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

function positiveInt(value: string): number {
  const n = int(value);
  if (n === 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

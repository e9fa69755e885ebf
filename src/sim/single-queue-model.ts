import { Command, Option } from 'commander';
import type { FailureTiming } from '../githost/sandbox/ci.js';
import { Random, drawMinutes } from '../githost/sandbox/random.js';
import { percentile } from './measure.js';
import { SCENARIOS, type Scenario } from './scenario.js';

/**
 * `npm run bench:single-model -- [--scenario s20] [--seeds 5] [--failure-timing end|uniform]`
 *
 * A rough model of a single (one-chain) speculative queue, to see what failure timing does to it:
 * unlimited concurrency and perfect knowledge of which PR is bad as soon as that PR's own run
 * fails, no hedged runs. A PR is tested with every unresolved PR ahead of it; if a bad PR among them
 * is found out only after its run started, it is tested again from that moment. A flaky run costs
 * one more run. Not a strict bound (the real queue also merges a PR on a passing run behind it) and
 * not the planner: a few lines of arithmetic.
 */
const program = new Command()
  .name('single-queue-model')
  .option('--scenario <name>', 'scenario', 's20')
  .option('--seeds <n>', 'how many seeds (1..n)', (v) => Number(v), 5)
  .addOption(new Option('--failure-timing <when>', 'when a failing run reports').choices(['end', 'uniform']))
  .parse();

const opts = program.opts<{ scenario: string; seeds: number; failureTiming?: FailureTiming }>();
const scenario = SCENARIOS[opts.scenario];
if (!scenario) {
  console.error(`unknown scenario ${opts.scenario}`);
  process.exit(2);
}

const timings: FailureTiming[] = opts.failureTiming ? [opts.failureTiming] : ['end', 'uniform'];
console.log(`single-queue model, ${scenario.name}: p50 time in queue / oracle p50, seeds 1..${opts.seeds}`);
for (const timing of timings) {
  for (const flakes of [false, true]) {
    const ratios = Array.from({ length: opts.seeds }, (_, i) => modelP50Ratio(scenario, i + 1, timing, flakes).toFixed(2));
    console.log(`failing runs report at ${timing === 'end' ? 'the end' : 'a uniform share'}, ${flakes ? 'with' : 'without'} flakes: ${ratios.join('  ')}`);
  }
}

function modelP50Ratio(s: Scenario, seed: number, timing: FailureTiming, flakes: boolean): number {
  const rng = new Random(seed);
  const failAt = (minutes: number): number => (timing === 'end' ? minutes : minutes * rng.next());
  /** When each bad PR's own failure is known, by arrival index. */
  const badKnownAt: { index: number; at: number }[] = [];
  const inQueue: number[] = [];
  const oracle: number[] = [];
  let t = 0;
  for (let j = 0; j < s.prs; j++) {
    t += rng.exponential(60 / s.prsPerHour);
    const bad = rng.chance(s.badRate);
    let start = t;
    // Restart after every bad PR ahead that is found out while this PR's run is under way.
    for (;;) {
      let latest = start;
      for (const b of badKnownAt) if (b.index < j && b.at > latest) latest = b.at;
      if (latest === start) break;
      start = latest;
    }
    let minutes = drawMinutes(s.ciDuration, rng);
    if (flakes && rng.chance(s.flakeRate)) {
      start += failAt(minutes);
      minutes = drawMinutes(s.ciDuration, rng);
    }
    if (bad) badKnownAt.push({ index: j, at: start + failAt(minutes) });
    else {
      inQueue.push(start + minutes - t);
      oracle.push(drawMinutes(s.ciDuration, rng));
    }
  }
  const median = (xs: number[]): number => percentile(xs.sort((a, b) => a - b), 0.5);
  return median(inQueue) / median(oracle);
}

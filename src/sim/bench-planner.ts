import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import type { QueueMode } from '../domain/settings.js';
import { plan } from '../planner/index.js';
import { buildDependencyGraph, type GraphUnit } from '../planner/parallel/index.js';
import {
  buildPlannerFixture,
  defaultFixtureOptions,
  describeLanes,
  graphUnits,
  withAllPrHeld,
  type PlannerFixture,
} from './planner-fixture.js';

/**
 * `npm run bench:planner -- [--sizes 100,1000,10000] [--targets 1000] [--universe N] [--runs N] [--json FILE]`
 * Planner scale (benchmarks.md §3): the time of one `plan()` over a busy queue of each size, single
 * and parallel mode, the median of several plans after a warm-up. Only the `plan()` call is timed.
 * A plan reads the dependency graph only as far down the queue as it looks, so parallel rows also
 * time the graph of the whole queue, and a plan of the same reconcile with an `ALL` PR holding every
 * unit behind it, where the plan does look at every unit.
 */
const MODES: readonly QueueMode[] = ['single', 'parallel'];
/** The bars: one plan of the largest parallel queue, and the growth from 1,000 to 10,000 entries. */
const BAR_PARALLEL_10K_MS = 100;
const BAR_GROWTH_1K_TO_10K = 15;
/** Warm-up before timing a case: at least this many plans, and until this much time has passed (JIT). */
const WARM_UP_PLANS = 2;
const WARM_UP_MS = 300;
const WARM_UP_MAX_PLANS = 200;

const program = new Command()
  .name('bench-planner')
  .option('--sizes <list>', 'queue sizes (active entries), comma-separated', intList, [100, 1000, 10000])
  .option('--targets <n>', 'impacted targets per PR', positiveInt, 1000)
  .option('--universe <n>', 'distinct target ids the PRs draw from', positiveInt, 100_000)
  .option('--runs <n>', 'timed plans per case (the median is reported)', positiveInt, 7)
  .option('--concurrency <n>', 'runs in flight in the queue', positiveInt, 100)
  .option('--seed <n>', 'random seed of the target sets', positiveInt, 1)
  .option('--json <file>', 'where to write the results', 'bench/results/planner.json')
  .parse();

const opts = program.opts<{ sizes: number[]; targets: number; universe: number; runs: number; concurrency: number; seed: number; json: string }>();
if (opts.targets > opts.universe) {
  console.error(`--targets ${opts.targets} is more than --universe ${opts.universe}`);
  process.exit(2);
}
const sharedPerPair = (opts.targets * opts.targets) / opts.universe;
console.log(
  `planner scale: ${opts.targets} impacted targets per PR drawn from a universe of ${opts.universe} ` +
    `(two PRs share ${sharedPerPair.toFixed(1)} targets on average), concurrency ${opts.concurrency}, ` +
    `median of ${opts.runs} plans after a warm-up (at least ${WARM_UP_PLANS} plans and ${WARM_UP_MS} ms), seed ${opts.seed}`,
);
console.log(
  'measured reconcile: a settled queue (runs in flight, a few passed units waiting for the head, 1% not ready) ' +
    'where the head run just passed and one new PR arrived',
);
console.log(
  'whole graph ms (parallel): scanning the dependency graph of every unit; a plan scans it only as far down the queue as it looks',
);
console.log('held by ALL ms (parallel): the same reconcile where the first pending PR impacts ALL and holds every unit behind it');

interface Case {
  entries: number;
  mode: QueueMode;
  targetsPerPr: number;
  planMs: number;
  /** Parallel mode: median time to scan the dependency graph of every unit. */
  wholeGraphMs: number | null;
  /** Parallel mode: median plan of the same reconcile with an ALL PR holding the units behind it. */
  heldByAllMs: number | null;
}
interface Row extends Case {
  minMs: number;
  maxMs: number;
  actions: number;
  states: string;
  lanes: string;
  buildSeconds: number;
}

const rows: Row[] = [];
for (const entries of opts.sizes) {
  for (const mode of MODES) {
    const startedBuild = performance.now();
    const fixture = buildPlannerFixture(
      defaultFixtureOptions(entries, mode, { targetsPerPr: opts.targets, universe: opts.universe, concurrency: opts.concurrency, seed: opts.seed }),
    );
    const buildSeconds = (performance.now() - startedBuild) / 1000;
    const lanes = mode === 'parallel' ? describeLanes(fixture) : null;
    const { times, actions } = timePlans(fixture, opts.runs);
    const held = mode === 'parallel' ? withAllPrHeld(fixture) : null;
    const row: Row = {
      entries,
      mode,
      targetsPerPr: opts.targets,
      planMs: round(median(times)),
      minMs: round(Math.min(...times)),
      maxMs: round(Math.max(...times)),
      actions,
      states: describeStates(fixture),
      lanes: lanes ? `${lanes.lanes} (largest ${lanes.largestLane}, ${lanes.meanDirectDependencies.toFixed(0)} deps/unit)` : '-',
      wholeGraphMs: mode === 'parallel' ? round(median(timeWholeGraph(graphUnits(fixture), opts.runs))) : null,
      heldByAllMs: held ? round(median(timePlans(held, opts.runs).times)) : null,
      buildSeconds,
    };
    rows.push(row);
    console.error(`  ${entries} ${mode}: median ${row.planMs} ms (document built in ${buildSeconds.toFixed(1)} s)`);
  }
}

console.log(formatRows(rows));
console.log();
let barsHold = true;
for (const mode of MODES) {
  const small = rows.find((r) => r.mode === mode && r.entries === 1000);
  const large = rows.find((r) => r.mode === mode && r.entries === 10000);
  if (!small || !large) continue;
  const growth = large.planMs / small.planMs;
  const ok = growth <= BAR_GROWTH_1K_TO_10K;
  barsHold &&= ok;
  console.log(`${mode}: 10,000/1,000 entries growth ${growth.toFixed(1)}x (bar: at most ${BAR_GROWTH_1K_TO_10K}x) ${ok ? 'ok' : 'FAILS'}`);
}
const largest = rows.find((r) => r.mode === 'parallel' && r.entries === 10000 && r.targetsPerPr === 1000);
if (largest) {
  const ok = largest.planMs < BAR_PARALLEL_10K_MS;
  barsHold &&= ok;
  console.log(`parallel, 10,000 entries, 1,000 targets per PR: ${largest.planMs} ms per plan (bar: under ${BAR_PARALLEL_10K_MS} ms) ${ok ? 'ok' : 'FAILS'}`);
}
if (!barsHold) console.log('some bars fail (see above)');

const cases: Case[] = rows.map(({ entries, mode, targetsPerPr, planMs, wholeGraphMs, heldByAllMs }) => ({
  entries,
  mode,
  targetsPerPr,
  planMs,
  wholeGraphMs,
  heldByAllMs,
}));
mkdirSync(dirname(opts.json), { recursive: true });
writeFileSync(
  opts.json,
  `${JSON.stringify({ universe: opts.universe, concurrency: opts.concurrency, runs: opts.runs, seed: opts.seed, cases }, null, 2)}\n`,
);
console.log(`results written to ${opts.json}`);

/** Times `runs` plans of the same document after a warm-up; plan() is pure, so each sees the same input. */
function timePlans(fixture: PlannerFixture, runs: number): { times: number[]; actions: number } {
  let actions = 0;
  const warmUpStarted = performance.now();
  for (let i = 0; i < WARM_UP_MAX_PLANS && (i < WARM_UP_PLANS || performance.now() - warmUpStarted < WARM_UP_MS); i++) {
    actions = plan(fixture.input, fixture.now).length;
  }
  if (actions === 0) throw new Error(`the plan of the ${fixture.options.entries}-entry ${fixture.options.mode} queue is empty`);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    plan(fixture.input, fixture.now);
    times.push(performance.now() - started);
  }
  return { times, actions };
}

/** Times building the graph and scanning it to the last unit (after one untimed scan). */
function timeWholeGraph(units: readonly GraphUnit[], runs: number): number[] {
  const scan = (): void => {
    if (units.length > 0) buildDependencyGraph(units).directDependencies(units.length - 1);
  };
  scan();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    scan();
    times.push(performance.now() - started);
  }
  return times;
}

function describeStates(fixture: PlannerFixture): string {
  const order = ['NOT_READY', 'PENDING', 'TESTING', 'TESTS_PASSED', 'PENDING_FAILURE', 'MERGED', 'FAILED', 'CANCELLED'] as const;
  const short: Record<(typeof order)[number], string> = {
    NOT_READY: 'not ready',
    PENDING: 'pending',
    TESTING: 'testing',
    TESTS_PASSED: 'passed',
    PENDING_FAILURE: 'suspect',
    MERGED: 'merged',
    FAILED: 'failed',
    CANCELLED: 'cancelled',
  };
  return order
    .filter((s) => fixture.states[s])
    .map((s) => `${fixture.states[s]} ${short[s]}`)
    .join(', ');
}

function formatRows(list: readonly Row[]): string {
  const columns: [string, (r: Row) => string][] = [
    ['entries', (r) => String(r.entries)],
    ['mode', (r) => r.mode],
    ['targets/PR', (r) => String(r.targetsPerPr)],
    ['plan ms (median)', (r) => r.planMs.toFixed(2)],
    ['min ms', (r) => r.minMs.toFixed(2)],
    ['max ms', (r) => r.maxMs.toFixed(2)],
    ['whole graph ms', (r) => (r.wholeGraphMs === null ? '-' : r.wholeGraphMs.toFixed(2))],
    ['held by ALL ms', (r) => (r.heldByAllMs === null ? '-' : r.heldByAllMs.toFixed(2))],
    ['actions', (r) => String(r.actions)],
    ['document', (r) => r.states],
    ['lanes', (r) => r.lanes],
  ];
  const cells = [columns.map(([h]) => h), ...list.map((r) => columns.map(([, f]) => f(r)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const textual = new Set(['mode', 'document', 'lanes']);
  const line = (row: string[]) =>
    row.map((c, i) => (textual.has(columns[i]![0]) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

function median(values: readonly number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function intList(value: string): number[] {
  const list = value.split(',').map((v) => positiveInt(v.trim()));
  if (list.length === 0) throw new InvalidArgumentError('expected a comma-separated list of positive integers');
  return list;
}

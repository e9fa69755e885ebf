import { formatStackTable, runStackBenchmark, stackStrategies } from './stack-benchmark.js';
import { STACKS, generateStackWorkload, stackScenario } from './stack-workload.js';
import { formatCauses } from './run-causes.js';
import { describeSettings } from './table.js';

/**
 * `bench-queue --scenario stacks [--stacks N] [--stacks-per-hour R] [--seed N] [--json FILE]`: stacks landed as one unit
 * against one by one, per strategy (benchmarks.md, "Stacks").
 */
export async function benchStacks(opts: { seed: number; stacks?: number; stacksPerHour?: number; only?: string; json?: string }, write: (file: string, content: unknown) => void): Promise<void> {
  const scenario = stackScenario(opts.stacksPerHour ? { ...STACKS, stacks: { ...STACKS.stacks, perHour: opts.stacksPerHour } } : STACKS, opts.stacks);
  const w = scenario.stacks.sizeWeights;
  const prs = generateStackWorkload(scenario, opts.seed).length;
  console.log(
    `scenario stacks: ${scenario.stacks.count} stacks of 1–${w.length} PRs (weights ${w.join(':')}), ${prs} PRs, at ${scenario.stacks.perHour} stacks/h, ` +
      `CI log-normal, ${scenario.badRate * 100}% of layers bad, ${scenario.flakeRate * 100}% flaky runs, seed ${opts.seed}`,
  );
  const only = opts.only?.split(',').map((n) => n.trim());
  const strategies = stackStrategies(scenario).filter((st) => !only || only.includes(st.name));
  const { rows } = await runStackBenchmark(scenario, strategies, opts.seed, (r) => console.error(`  ${r.strategy} ${r.landing} done in ${r.wallSeconds}s`));
  console.log(formatStackTable(rows));
  console.log('CI runs by cause (a unit\'s run: the reason it was put back to PENDING; `ready`: its first run):');
  for (const r of rows) console.log(`  ${r.strategy} ${r.landing}: ${formatCauses(r.runCauses)}`);
  for (const st of strategies) console.log(`${st.name}: ${describeSettings(st.settings)}`);
  const { name, ...parameters } = scenario;
  write(opts.json ?? `bench/results/queue-${name}.json`, { scenario: { name, ...parameters, seed: opts.seed }, rows });
}

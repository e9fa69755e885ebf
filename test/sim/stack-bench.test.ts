import { runStackCase, stackStrategies, type StackRow } from '../../src/sim/stack-benchmark.js';
import { simulate } from '../../src/sim/simulate.js';
import { STACKS, generateStackWorkload, stackScenario, type StackScenario } from '../../src/sim/stack-workload.js';

/** The bench's stacks (1-8 layers, 5% bad each), a dozen of them, arriving far enough apart to keep up. */
const small: StackScenario = { ...stackScenario({ ...STACKS, stacks: { ...STACKS.stacks, perHour: 2 } }, 12), name: 'stacks-small' };
const SEED = 3;
const prs = generateStackWorkload(small, SEED);
const single = stackStrategies(small)[0]!;

describe('stack workloads in the queue benchmark', () => {
  const rows: Partial<Record<'unit' | 'one-by-one', StackRow>> = {};
  beforeAll(async () => {
    rows.unit = await runStackCase(small, prs, single, 'unit', SEED);
    rows['one-by-one'] = await runStackCase(small, prs, single, 'one-by-one', SEED);
  }, 60_000);

  test('the workload has stacks of several sizes and bad layers in some of them', () => {
    const sizes = new Set(prs.map((p) => p.stack?.size ?? 1));
    expect(sizes.size).toBeGreaterThan(3);
    expect(prs.some((p) => p.bad && p.stack && p.stack.position < p.stack.size)).toBe(true);
    // Every member of a stack arrives with it.
    for (const p of prs) if (p.stack) expect(p.arrivalMinutes).toBe(prs[p.stack.bottom]!.arrivalMinutes);
  });

  test.each(['unit', 'one-by-one'] as const)('%s: no bad PR merges, every arrived PR is resolved', (landing) => {
    const r = rows[landing]!;
    expect(r.stopped).toBeUndefined();
    expect(r.badMerged).toBe(0);
    expect(r.unresolved).toBe(0);
    expect(r.merged + r.culprits + r.leftWithStack + r.notSubmitted + r.cancelled).toBe(prs.length);
    // Every bad layer fails as the culprit, or leaves (or is never submitted) with a failed layer below it.
    expect(r.culprits).toBeGreaterThanOrEqual(1);
  });

  test('as one unit, a failed layer takes the layers above it out; one by one, they are never submitted', () => {
    expect(rows.unit!.leftWithStack).toBeGreaterThan(0);
    expect(rows.unit!.notSubmitted).toBe(0);
    expect(rows['one-by-one']!.leftWithStack).toBe(0);
    expect(rows['one-by-one']!.notSubmitted).toBeGreaterThan(0);
  });

  test('the same layers land either way: those below the first failing layer of each stack', () => {
    expect(rows.unit!.merged).toBe(rows['one-by-one']!.merged);
  });

  test('a unit needs fewer CI runs per merged PR than landing its members one by one', () => {
    expect(rows.unit!.ciRunsPerMerged).toBeLessThan(rows['one-by-one']!.ciRunsPerMerged);
  });

  test('the simulation is deterministic for a seed', async () => {
    const again = await simulate({ scenario: small, prs, settings: single.settings, seed: SEED, landing: 'unit' });
    expect(again.ciRuns).toBe(rows.unit!.ciRuns);
  });
});

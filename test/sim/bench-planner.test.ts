import type { QueueMode } from '../../src/domain/settings.js';
import { Random } from '../../src/githost/sandbox/random.js';
import { plan } from '../../src/planner/index.js';
import { buildPlannerFixture, defaultFixtureOptions, describeLanes, TargetSampler, withAllPrHeld } from '../../src/sim/planner-fixture.js';

/** The documents bench:planner times: small versions of them, checked for the state mix they promise. */
const small = (mode: QueueMode) =>
  buildPlannerFixture(defaultFixtureOptions(300, mode, { concurrency: 20, targetsPerPr: 50, universe: 500, notReady: 3 }));

describe('planner bench fixture', () => {
  it.each(['single', 'parallel'] as const)('%s: a busy queue with runs in flight, passed units waiting and a PR arriving', (mode) => {
    const f = small(mode);
    const q = f.input.queue;
    expect(q.settings.mode).toBe(mode);
    expect(q.entries).toHaveLength(300);
    // 3 not ready yet + the PR that just arrived; 20 runs in flight; 5 passed behind the head.
    expect(f.states).toEqual({ NOT_READY: 4, PENDING: 271, TESTING: 20, TESTS_PASSED: 5 });
    expect(q.units).toHaveLength(296);
    expect(q.runs.filter((r) => r.status === 'pending')).toHaveLength(20);
    // The head's run has just reported success.
    const head = q.entries.find((e) => e.id === q.units[0]!.entryIds[0])!;
    expect(head.state).toBe('TESTING');
    expect(q.runs.find((r) => r.id === head.testRunId)!.statusChecks).toEqual([{ context: 'ci', state: 'success', url: null }]);
    // The engine gives the planner targets only in parallel mode.
    expect(f.input.targets.size).toBe(mode === 'parallel' ? 300 : 0);
    expect(f.allTargets.size).toBe(300);
  });

  it.each(['single', 'parallel'] as const)('%s: planning it lands the head and the passed units, places the new PR and starts a run', (mode) => {
    const f = small(mode);
    if (mode === 'parallel') expect(describeLanes(f).lanes).toBe(1);
    const actions = plan(f.input, f.now);
    const landed = actions.filter((a) => (a.type === 'transition' || a.type === 'patchEntry') && a.set?.mergeIntent);
    expect(landed).toHaveLength(6);
    expect(actions.filter((a) => a.type === 'placeUnit')).toHaveLength(1);
    const created = actions.filter((a) => a.type === 'createRun');
    expect(created).toHaveLength(1);
    // Pure: the same input gives the same plan.
    expect(plan(f.input, f.now)).toEqual(actions);
  });

  it('parallel: with the first pending PR impacting ALL, it lands the same units but starts no run behind that PR', () => {
    const f = withAllPrHeld(small('parallel'))!;
    const held = f.input.queue.entries.find((e) => e.state === 'PENDING')!;
    expect(f.input.targets.get(held.id)).toBe('ALL');
    const actions = plan(f.input, f.now);
    expect(actions.filter((a) => (a.type === 'transition' || a.type === 'patchEntry') && a.set?.mergeIntent)).toHaveLength(6);
    expect(actions.filter((a) => a.type === 'createRun')).toEqual([]);
  });

  it('is deterministic for a seed and draws distinct sorted target ids', () => {
    const a = small('parallel');
    const b = small('parallel');
    expect([...a.allTargets.keys()]).toEqual([...b.allTargets.keys()]);
    const problems: string[] = [];
    for (const [id, set] of a.allTargets) {
      const other = b.allTargets.get(id);
      if (set === 'ALL' || other === 'ALL' || !other) throw new Error(`entry ${id}: a list of ids expected`);
      if (set.length !== 50) problems.push(`${id}: ${set.length} ids`);
      if (set.some((x, i) => x !== other[i])) problems.push(`${id}: differs between two builds`);
      if (set.some((x, i) => i > 0 && x <= set[i - 1]!)) problems.push(`${id}: not sorted and distinct`);
      if (set[set.length - 1]! >= 500) problems.push(`${id}: outside the universe`);
    }
    expect(problems).toEqual([]);
  });

  it('samples every id of a universe it is asked for in full', () => {
    const sampler = new TargetSampler(64, new Random(7));
    expect(Array.from(sampler.draw(64))).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(sampler.draw(3)).toHaveLength(3);
  });
});

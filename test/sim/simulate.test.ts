import { runStrategy } from '../../src/sim/benchmark.js';
import { measure, oracle, stopBacklog } from '../../src/sim/measure.js';
import { formatTable, formatVerdictShares } from '../../src/sim/table.js';
import { SCENARIOS, type Scenario } from '../../src/sim/scenario.js';
import { openMemoryStore } from '../../src/store/memory/open-memory.js';
import { simulate } from '../../src/sim/simulate.js';
import { generateWorkload } from '../../src/sim/workload.js';
import { singleSettings } from '../../src/sim/strategies.js';

const tiny: Scenario = { ...SCENARIOS.s20!, name: 'tiny', prs: 30, prsPerHour: 6, badRate: 0.1, flakeRate: 0.05, closeAfterMinutes: 600 };

describe('simulator over the real engine and planner', () => {
  it('is deterministic, merges no bad PR and resolves every PR', async () => {
    const prs = generateWorkload(tiny, 5);
    expect(prs.some((p) => p.bad)).toBe(true);
    const settings = { concurrency: 4 };
    const first = await simulate({ scenario: tiny, prs, settings, seed: 5 });
    const second = await simulate({ scenario: tiny, prs, settings, seed: 5 });
    expect(second.outcomes).toEqual(first.outcomes);
    expect(second.ciRuns).toBe(first.ciRuns);

    const r = measure({ name: 'single', settings, prs, outcomes: first.outcomes, ciRuns: first.ciRuns, oracleP50Min: oracle(prs).timeInQueueP50Min });
    expect(r.badMerged).toBe(0);
    expect(r.backlogAtEnd).toBe(0);
    expect(r.merged + r.failed + r.extra.cancelled).toBe(prs.length);
    // Every merged PR was tested at least once, and a bad one is never let through.
    expect(first.ciRuns).toBeGreaterThanOrEqual(r.merged);
    first.outcomes.forEach((o, i) => {
      if (prs[i]!.bad) expect(o.state).toBe('FAILED');
      if (o.mergedAtMinutes !== null) expect(o.mergedAtMinutes).toBeGreaterThan(prs[i]!.arrivalMinutes);
    });
    expect(first.reasons.submitted).toBe(prs.length);
    // Every failed PR was named the culprit (or a flake or CI failure); PRs in its runs paid as bystanders.
    expect(first.verdicts.culprit).toBeGreaterThanOrEqual(prs.filter((p) => p.bad).length);
    expect(first.verdicts.bystander).toBeGreaterThan(0);
  });

  it('without flakes, a serial queue merges exactly the PRs the oracle merges', async () => {
    const clean: Scenario = { ...tiny, flakeRate: 0, prs: 12, prsPerHour: 1, testModel: null };
    const prs = generateWorkload(clean, 9);
    const sim = await simulate({ scenario: clean, prs, settings: { concurrency: 1 }, seed: 9 });
    const expected = oracle(prs);
    expect(sim.outcomes.filter((o) => o.state === 'MERGED')).toHaveLength(expected.merged);
    // One run per PR when nothing fails by chance and nothing speculates, plus the one flake rerun
    // (flakeRetries defaults to 1) of each PR that really fails: without test results, a failure
    // cannot be told from a flake.
    expect(expected.failed).toBeGreaterThan(0);
    expect(sim.ciRuns).toBe(prs.length + expected.failed);
  });

  it('with test results, a PR that breaks a test fails after its one run: no rerun is spent on it', async () => {
    const clean: Scenario = { ...tiny, flakeRate: 0, prs: 12, prsPerHour: 1 };
    const prs = generateWorkload(clean, 9);
    const sim = await simulate({ scenario: clean, prs, settings: { concurrency: 1 }, seed: 9 });
    const expected = oracle(prs);
    expect(sim.outcomes.filter((o) => o.state === 'MERGED')).toHaveLength(expected.merged);
    expect(expected.failed).toBeGreaterThan(0);
    expect(sim.ciRuns).toBe(prs.length);
  });

  it("sees events at the end of the scenario's tick: a finer tick leaves out the delay the oracle never has", async () => {
    const fixed: Scenario = { ...tiny, badRate: 0, flakeRate: 0, logicalConflictOneIn: 0, ciDuration: { kind: 'fixed', minutes: 30 } };
    const prs = generateWorkload(fixed, 4);
    const timesInQueue = async (tickMinutes: number) => {
      const sim = await simulate({ scenario: { ...fixed, tickMinutes }, prs, settings: { concurrency: 10 }, seed: 4 });
      return sim.outcomes.map((o, i) => o.mergedAtMinutes! - prs[i]!.arrivalMinutes);
    };
    // Submitted at the first tick after it arrives, CI seen at the first tick after it reports.
    const coarse = await timesInQueue(1);
    for (const t of coarse) expect(t).toBeGreaterThanOrEqual(30);
    expect(Math.max(...coarse)).toBeGreaterThan(30.5);
    for (const t of await timesInQueue(0.1)) expect(t).toBeLessThanOrEqual(30.2 + 1e-9);
  });

  it('stops a queue that falls hours behind, and reports it as not keeping up', async () => {
    const busy: Scenario = { ...tiny, name: 'busy', prs: 300, prsPerHour: 30, badRate: 0.05, flakeRate: 0 };
    const prs = generateWorkload(busy, 3);
    const limit = stopBacklog(prs.length);
    expect(limit).toBe(75);
    const serial = await simulate({ scenario: busy, prs, settings: { concurrency: 1 }, seed: 3, stopAtBacklog: limit });
    expect(serial.stopped?.because).toBe('backlog');
    // It stopped well before the last arrival, with the limit exceeded.
    expect(serial.stopped!.atMinutes).toBeLessThan(prs.at(-1)!.arrivalMinutes);
    const arrived = prs.filter((p) => p.arrivalMinutes <= serial.stopped!.atMinutes).length;
    const resolved = serial.outcomes.filter((o) => o.state !== 'UNRESOLVED').length;
    expect(arrived - resolved).toBeGreaterThan(limit);

    const result = await runStrategy(busy, prs, { name: 'serial', settings: { concurrency: 1 } }, 3, oracle(prs).timeInQueueP50Min);
    expect(result.keptUp).toBe(false);
    expect(result.extra.stoppedAtMinutes).toBe(serial.stopped!.atMinutes);
    expect(formatTable([result])).toMatch(/NO, stopped at \d+ h \(backlog\)/);
    // The bench prints bystander restarts per merged PR, and each strategy's share of verdicts.
    expect(formatTable([result]).split('\n')[0]).toContain('bystanders/merged');
    expect(formatVerdictShares([result])).toMatch(/^serial: verdicts (none|([a-z]+ \d+% \(\d+\)(, )?)+)$/);

    // A cap on the PRs its CI runs hold stops a queue that restarts too much (here: any queue at all).
    const capped = await simulate({ scenario: busy, prs, settings: { concurrency: 10 }, seed: 3, stopAtTestedPrsPerPr: 0.5 });
    expect(capped.stopped?.because).toBe('ci_work');
    const arrivedAtCap = prs.filter((p) => p.arrivalMinutes <= capped.stopped!.atMinutes).length;
    expect(capped.testedPrs).toBeGreaterThan(0.5 * arrivedAtCap);

    // A queue that keeps up runs to the close.
    const clean: Scenario = { ...busy, badRate: 0 };
    const cleanPrs = generateWorkload(clean, 3);
    const wide = await runStrategy(clean, cleanPrs, { name: 'wide', settings: { concurrency: 40, canOptimisticallyMerge: true } }, 3, oracle(cleanPrs).timeInQueueP50Min);
    expect(wide.extra.stoppedAtMinutes).toBeUndefined();
    expect(wide.keptUp).toBe(true);
  });

  it('gives the same results on the memory store as on SQLite, and never changes a stored document', async () => {
    const prs = generateWorkload(tiny, 11);
    for (const settings of [{ concurrency: 4 }, { concurrency: 6, canOptimisticallyMerge: true, pendingFailureDepth: 1 }]) {
      const real = await simulate({ scenario: tiny, prs, settings, seed: 11, store: 'sqlite' });
      // Frozen documents: a change in place anywhere in the engine or planner would throw.
      const frozen = await simulate({ scenario: tiny, prs, settings, seed: 11, store: openMemoryStore() });
      expect(frozen.outcomes).toEqual(real.outcomes);
      expect(frozen.ciRuns).toBe(real.ciRuns);
      expect(frozen.reasons).toEqual(real.reasons);
    }
  });

  it('in single mode with test results, blame by test names the PRs that broke a test, many before their own runs end', async () => {
    const scenario = SCENARIOS.s20!;
    const prs = generateWorkload(scenario, 1).slice(0, 400);
    const store = openMemoryStore();
    await simulate({ scenario, prs, settings: singleSettings(scenario), seed: 1, store });
    const q = (await store.queues.listQueues({}))[0]!;
    const entries = [...q.entries, ...(await store.queues.archivedEntriesEndedSince([q.id], '1970-01-01T00:00:00.000Z'))];
    const blames = entries.flatMap((e) =>
      e.history.flatMap((h, i) => {
        const test = /^blamed for "(.*?)"/.exec(h.reason.message)?.[1];
        return test === undefined ? [] : [{ pr: e.prNumber, test, state: e.state, from: e.history[i - 1]!.state }];
      }),
    );
    // The sandbox names a broken test after the PR that broke it ("test of #N", "#M with #N"); the
    // queue never reads that, so it tells whether blame found the culprit.
    const right = blames.filter((b) => b.test === `test of #${b.pr}` || b.test.endsWith(` with #${b.pr}`));
    expect(blames.length).toBeGreaterThanOrEqual(10);
    expect(right.length).toBeGreaterThanOrEqual(0.9 * blames.length);
    for (const b of right) expect(b.state).toBe('FAILED');
    // Many while their own run was still going (blamed from TESTING): 11 of 27 here.
    expect(right.filter((b) => b.from === 'TESTING').length).toBeGreaterThanOrEqual(5);
    for (const e of entries) if (e.state === 'MERGED') expect(prs[e.prNumber - 1]!.bad).toBe(false);
  }, 120_000); // 400 PRs through the real engine: tens of seconds, more on a busy machine
});

import { ciHistoryOf, estimateMergeTimes, type CiHistory } from '../../src/domain/eta.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';
import { MIN, NOW, at, ended } from './eta-runs.js';

const ms = (iso: string) => Date.parse(iso);

const spread: CiHistory = { medianRunMs: 20 * MIN, failureRate: 0, flakeRate: 0, durationsMs: [10, 12, 15, 18, 20, 22, 25, 30, 40, 60].map((m) => m * MIN) };

/** A parallel queue of one-PR units, all under test; `runs[u]`: how long unit u's run has run and the units it is built on. */
function parallelQueue(runs: { ago: number; on?: number[] }[]): Pick<QueueDoc, 'id' | 'state' | 'settings' | 'entries' | 'units' | 'runs'> {
  const entries = runs.map((_, u) => ({ id: `e${u}`, state: 'TESTING' }) as Entry);
  const units = runs.map((_, u) => ({ id: `u${u}`, createdAt: NOW.toISOString(), entryIds: [`e${u}`] }));
  const testRuns = runs.map(
    ({ ago, on = [] }, u) =>
      ({ id: `r${u}`, unitId: `u${u}`, kind: 'main', status: 'pending', createdAt: at(-ago), attempt: 0, dependencyEntryIds: on.map((d) => `e${d}`) }) as TestRun,
  );
  const settings = defaultSettings({ mode: 'parallel', concurrency: 10, canOptimisticallyMerge: true });
  return { id: 'q1', state: 'running', settings, entries, units, runs: testRuns };
}

const rangeOf = (doc: ReturnType<typeof parallelQueue>, entryId: string, history: CiHistory) => estimateMergeTimes(doc, history, NOW).get(entryId)!.estimatedMergeRange!;


describe('the 80% range in parallel mode', () => {
  test('a PR merges when its own run, built on its lane ahead, passes: the run ahead still going does not hold it back', () => {
    // PR 1's run (built on PR 0) has run 21 minutes: 1 to 39 more. PR 0's run has just started.
    const doc = parallelQueue([{ ago: 0 }, { ago: 21, on: [0] }]);
    const range = rangeOf(doc, 'e1', spread);
    expect(ms(range.latest)).toBeLessThanOrEqual(ms(at(39)));
    // And PR 0 merges with it: by the time either run passes.
    expect(ms(rangeOf(doc, 'e0', spread).latest)).toBeLessThanOrEqual(ms(at(39)));
  });

  test('a PR in its own lane gets a range from its own run alone, not from the other lane\'s runs', () => {
    const alone = rangeOf(parallelQueue([{ ago: 0 }]), 'e0', spread);
    // A PR ahead in another lane whose run has just started changes nothing for it.
    const besideAnother = rangeOf(parallelQueue([{ ago: 0 }, { ago: 0 }]), 'e1', spread);
    expect([besideAnother.earliest, besideAnother.latest]).toEqual([alone.earliest, alone.latest]);
  });

  test('PRs placed ahead of runs in flight, as recently seen, push the far end out and leave the near one', () => {
    const doc = parallelQueue([{ ago: 0 }]);
    const calm = rangeOf(doc, 'e0', spread);
    // One restart of a run in flight per 100 minutes of runs: a 20-minute run is restarted about one time in five.
    const busy = rangeOf(doc, 'e0', { ...spread, preemptionsPerMs: 1 / (100 * MIN) });
    expect(ms(busy.latest)).toBeGreaterThan(ms(calm.latest) + 5 * MIN);
    expect(ms(busy.earliest)).toBeLessThanOrEqual(ms(calm.earliest) + 2 * MIN);
  });
});

describe('what cancelled runs tell a parallel queue\'s history', () => {
  // Ten finished runs of 10 to 19 minutes, all of them ending in the last hour.
  const finished = Array.from({ length: 10 }, (_, i) => ended(`f${i}`, `done${i}`, -60 + i - (10 + i), -60 + i, 'passed', [`d${i}`]));

  test('a run cancelled after it ran long, to be built again, counts as lasting longer: the range reaches further', () => {
    // Five runs cancelled after 30 minutes, each followed by a new run of its unit.
    const cancelled = Array.from({ length: 5 }, (_, i) => [
      ended(`c${i}`, `busy${i}`, -55, -25, 'cancelled', [`b${i}`]),
      ended(`n${i}`, `busy${i}`, -25, -5, 'passed', [`b${i}`]),
    ]).flat();
    const plain = ciHistoryOf([...finished, ...cancelled]);
    const withLanes = ciHistoryOf([...finished, ...cancelled], { lanes: true });
    expect(plain.rangeDurationsMs).toBeUndefined();
    expect(Math.max(...withLanes.rangeDurationsMs!)).toBeGreaterThanOrEqual(30 * MIN);
    const doc = parallelQueue([{ ago: 0 }]);
    expect(ms(rangeOf(doc, 'e0', withLanes).latest)).toBeGreaterThan(ms(rangeOf(doc, 'e0', plain).latest));
  });

  test('a run cancelled because a run behind it merged its PR says nothing of its length: it is left out', () => {
    const merged = Array.from({ length: 5 }, (_, i) => ended(`c${i}`, `merged${i}`, -55, -25, 'cancelled', [`m${i}`]));
    expect(ciHistoryOf([...finished, ...merged], { lanes: true }).rangeDurationsMs).toEqual(ciHistoryOf(finished).durationsMs);
  });

  test('a restart by a PR placed ahead counts per minute of runs; a rebuild without a failed PR ahead does not', () => {
    const runs = [
      // Unit u: built on p, cancelled after 10 minutes when an `ALL` PR went ahead, rebuilt on it.
      ended('a', 'u', -40, -30, 'cancelled', ['p', 'u1']),
      ended('b', 'u', -30, -10, 'passed', ['all', 'p', 'u1']),
      // Unit v: built on f, which failed; rebuilt without it: no PR placed ahead.
      ended('c', 'v', -40, -20, 'cancelled', ['f', 'v1']),
      ended('d', 'v', -20, 0, 'passed', ['v1']),
    ];
    // One restart in 70 minutes of runs.
    expect(ciHistoryOf(runs, { lanes: true }).preemptionsPerMs).toBeCloseTo(1 / (70 * MIN), 12);
    expect(ciHistoryOf(runs).preemptionsPerMs).toBeUndefined();
  });
});

import { ciHistoryOf, estimateMergeTimes, type CiHistory } from '../../src/domain/eta.js';
import { restartChancePerPr } from '../../src/domain/eta-restarts.js';
import { Random } from '../../src/domain/random.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import { defaultSettings } from '../../src/domain/settings.js';
import type { PrState } from '../../src/domain/states.js';
import { MIN, NOW, at, ended } from './eta-runs.js';

const ms = (iso: string) => Date.parse(iso);

/** A single-mode queue of one-PR units; `runs[u]`: how long unit u's run has run and the units it is built on. */
function singleQueue(units: { state: PrState; ago: number; on: number[] }[]): Pick<QueueDoc, 'id' | 'state' | 'settings' | 'entries' | 'units' | 'runs'> {
  return {
    id: 'q1',
    state: 'running',
    settings: defaultSettings({ mode: 'single', concurrency: 10, canOptimisticallyMerge: true }),
    entries: units.map(({ state }, u) => ({ id: `e${u}`, state }) as Entry),
    units: units.map((_, u) => ({ id: `u${u}`, createdAt: NOW.toISOString(), entryIds: [`e${u}`] })),
    runs: units.map(
      ({ ago, on }, u) =>
        ({ id: `r${u}`, unitId: `u${u}`, kind: 'main', status: 'pending', createdAt: at(-ago), attempt: 0, dependencyEntryIds: on.map((d) => `e${d}`) }) as TestRun,
    ),
  };
}

describe('single mode: a suspect ahead that a run leaves out', () => {
  // PR 0 failed and is rerun beside the queue (its rerun has just started); PR 1's run, 5 minutes in, was rebuilt without it.
  const leftOut = singleQueue([
    { state: 'PENDING_FAILURE', ago: 0, on: [] },
    { state: 'TESTING', ago: 5, on: [] },
  ]);
  const builtOn = singleQueue([
    { state: 'TESTING', ago: 0, on: [] },
    { state: 'TESTING', ago: 5, on: [0] },
  ]);

  test('is not waited for: the PR behind merges when its own run passes (the queue merges it past the suspect)', () => {
    const history: CiHistory = { medianRunMs: 10 * MIN, failureRate: 0.5, flakeRate: 0 };
    expect(estimateMergeTimes(leftOut, history, NOW).get('e1')!.estimatedMergeAt).toBe(at(5));
    // Built on it, the PR waits for it, and for the chance that it fails.
    expect(estimateMergeTimes(builtOn, history, NOW).get('e1')!.estimatedMergeAt).toBe(at(15));
  });

  test('cannot restart it: the range of the PR behind has no far end of a failure ahead', () => {
    const durationsMs = [10, 12, 15, 18, 20, 22, 25, 30, 40, 60].map((m) => m * MIN);
    const history: CiHistory = { medianRunMs: 20 * MIN, failureRate: 0.5, breakRate: 0.5, flakeRate: 0, durationsMs };
    const latest = (doc: typeof leftOut) => ms(estimateMergeTimes(doc, history, NOW).get('e1')!.estimatedMergeRange!.latest);
    // 5 minutes in, its own run has at most 55 more minutes to go; a failure ahead would add a whole run.
    expect(latest(leftOut)).toBeLessThanOrEqual(ms(at(55)));
    expect(latest(builtOn)).toBeGreaterThan(ms(at(55)));
  });
});

/** A first main run of unit `unit` built on `ahead` PRs, started `from` minutes from now and (unless pending) ended 30 minutes later. */
function run(id: string, unit: string, ahead: number, status: TestRun['status'], from = -40): TestRun {
  const prs = Array.from({ length: ahead + 1 }, (_, i) => `${unit}-pr${i}`);
  return ended(id, unit, from, status === 'pending' ? null : from + 30, status, prs);
}

describe('single mode: the chance that a PR ahead fails and restarts a run', () => {
  test('is read from how often the recent runs were rebuilt, not from the few that ended failed', () => {
    // 20 runs built on 4 PRs ahead: 10 rebuilt (a later run of the same unit), 6 merged by a run behind
    // (cancelled, no later run), 2 passed, 2 failed. Most ended failed of those that ended at all.
    const runs: TestRun[] = [];
    for (let i = 0; i < 10; i++) runs.push(run(`a${i}`, `rebuilt${i}`, 4, 'cancelled'), run(`b${i}`, `rebuilt${i}`, 3, 'pending', -5));
    for (let i = 0; i < 6; i++) runs.push(run(`c${i}`, `merged${i}`, 4, 'cancelled'));
    runs.push(run('p0', 'p0', 4, 'passed'), run('p1', 'p1', 4, 'passed'), run('f0', 'f0', 4, 'failed'), run('f1', 'f1', 4, 'failed'));
    // Half the runs built on 4 PRs ahead were restarted: 1 − (1 − p)^4 = 1/2.
    expect(ciHistoryOf(runs).breakRate).toBeCloseTo(1 - 0.5 ** 0.25, 4);
    // Parallel mode keeps the failed first runs' share, spread over the PRs a run holds (its restarts are drawn apart).
    expect(ciHistoryOf(runs, { lanes: true }).breakRate).toBeCloseTo(1 - 0.5 ** (1 / 5), 4);
  });

  test('finds the chance under which restarts of runs built on few and on many PRs ahead were likeliest', () => {
    // Runs built on 1 to 30 PRs ahead, each restarted as if every PR ahead failed at 10%. The share of
    // runs restarted spread over the mean number of PRs ahead would say about 7%.
    const random = new Random(3);
    const runs: TestRun[] = [];
    for (let i = 0; i < 3000; i++) {
      const ahead = 1 + random.int(30);
      const restarted = random.chance(1 - 0.9 ** ahead);
      runs.push(run(`r${i}`, `u${i}`, ahead, restarted ? 'cancelled' : 'passed'));
      if (restarted) runs.push(run(`again${i}`, `u${i}`, ahead, 'pending', -5));
    }
    expect(restartChancePerPr(runs, '')).toBeCloseTo(0.1, 2);
  });

  test('a queue whose runs are built on no PR ahead (one at a time) keeps the share of failed first runs', () => {
    const runs = [run('a', 'a', 0, 'passed'), run('b', 'b', 0, 'failed'), run('c', 'c', 0, 'passed'), run('d', 'd', 0, 'passed')];
    expect(restartChancePerPr(runs, '')).toBeNull();
    expect(ciHistoryOf(runs).breakRate).toBe(0.25);
  });

  test('no run restarted: no failure ahead is drawn', () => {
    expect(restartChancePerPr([run('a', 'a', 3, 'passed'), run('b', 'b', 5, 'failed')], '')).toBe(0);
  });
});

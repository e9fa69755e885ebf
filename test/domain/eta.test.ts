import { ciHistoryOf, estimateMergeTimes, type CiHistory } from '../../src/domain/eta.js';
import { Random } from '../../src/domain/random.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { TestRun } from '../../src/domain/run.js';
import { defaultSettings, type QueueSettings } from '../../src/domain/settings.js';
import type { PrState, QueueState } from '../../src/domain/states.js';

const NOW = new Date('2026-11-22T10:00:00.000Z');
const MIN = 60_000;
const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN).toISOString();

type Doc = Pick<QueueDoc, 'id' | 'state' | 'settings' | 'entries' | 'units' | 'runs'>;

/** `units`: the entries' states in queue order, one array per unit; `running`: units with a run that started `minutes` ago. */
function queue(opts: { units: PrState[][]; running?: Record<number, number>; state?: QueueState; settings?: Partial<QueueSettings>; notReady?: number }): Doc {
  const entries: Entry[] = [];
  const units = opts.units.map((states, u) => ({
    id: `u${u}`,
    createdAt: NOW.toISOString(),
    entryIds: states.map((state, i) => {
      const id = `e${u}.${i}`;
      entries.push({ id, state } as Entry);
      return id;
    }),
  }));
  for (let i = 0; i < (opts.notReady ?? 0); i++) entries.push({ id: `waiting${i}`, state: 'NOT_READY' } as Entry);
  // In single mode a run is built on every unit ahead (as the planner builds it); parallel tests set their lanes.
  const ahead = (u: number) => (opts.settings?.mode === 'parallel' ? [] : units.slice(0, u).flatMap((unit) => unit.entryIds));
  const runs = Object.entries(opts.running ?? {}).map(
    ([u, ago]) => ({ id: `r${u}`, unitId: `u${u}`, kind: 'main', status: 'pending', createdAt: at(-ago), attempt: 0, dependencyEntryIds: ahead(Number(u)) }) as TestRun,
  );
  return { id: 'q1', state: opts.state ?? 'running', settings: defaultSettings(opts.settings), entries, units, runs };
}

const tenMinutes: CiHistory = { medianRunMs: 10 * MIN, failureRate: 0, flakeRate: 0 };
const etas = (doc: Doc, history = tenMinutes) => {
  const estimates = estimateMergeTimes(doc, history, NOW);
  return doc.entries.map((e) => estimates.get(e.id)?.estimatedMergeAt ?? estimates.get(e.id)?.reason?.code);
};

test.each([
  {
    name: 'one slot: each unit waits for the run ahead',
    doc: queue({ units: [['TESTING'], ['PENDING'], ['PENDING']], running: { 0: 4 } }),
    want: [at(6), at(16), at(26)],
  },
  {
    name: 'four slots: runs in flight end together, the fifth starts when the first slot frees',
    doc: queue({ units: [['TESTING'], ['TESTING'], ['TESTING'], ['TESTING'], ['PENDING']], running: { 0: 2, 1: 2, 2: 2, 3: 2 }, settings: { concurrency: 4 } }),
    want: [at(8), at(8), at(8), at(8), at(18)],
  },
  {
    name: 'a unit merges no earlier than the one ahead of it',
    doc: queue({ units: [['TESTING'], ['TESTING']], running: { 0: 0, 1: 9 }, settings: { concurrency: 2 } }),
    want: [at(10), at(10)],
  },
  {
    name: 'a batch is one run for all its PRs',
    doc: queue({ units: [['PENDING', 'PENDING', 'PENDING'], ['PENDING']], settings: { batch: true } }),
    want: [at(10), at(10), at(10), at(20)],
  },
  {
    name: 'passed and waiting to merge: now',
    doc: queue({ units: [['TESTS_PASSED'], ['PENDING']] }),
    want: [at(0), at(10)],
  },
  {
    name: 'a run past its usual time is expected to end now, not in the past',
    doc: queue({ units: [['TESTING']], running: { 0: 25 } }),
    want: [at(0)],
  },
  {
    name: 'paused: no estimate, and why',
    doc: queue({ units: [['PENDING']], state: 'paused' }),
    want: ['queue_paused'],
  },
  {
    name: 'not ready: no estimate, and why',
    doc: queue({ units: [['PENDING']], notReady: 1 }),
    want: [at(10), 'not_ready'],
  },
])('$name', ({ doc, want }) => {
  expect(etas(doc)).toEqual(want);
});

test('failures seen ahead push later PRs back: one run time, weighted by the chance of at least one failure ahead', () => {
  const doc = queue({ units: [['PENDING'], ['PENDING'], ['PENDING']], settings: { concurrency: 3 } });
  expect(etas(doc, { medianRunMs: 10 * MIN, failureRate: 0.5, flakeRate: 0 })).toEqual([at(10), at(15), at(17.5)]);
});

test('parallel mode: a unit waits only for the units its run is built on', () => {
  const doc = queue({ units: [['TESTING'], ['TESTING'], ['TESTING']], running: { 0: 0, 1: 5, 2: 8 }, settings: { mode: 'parallel', concurrency: 3 } });
  doc.runs[2]!.dependencyEntryIds = ['e0.0'];
  expect(etas(doc, { medianRunMs: 10 * MIN, failureRate: 0.5, flakeRate: 0 })).toEqual([at(10), at(5), at(15)]);
});

test('flake reruns add their share of a run to every undecided unit', () => {
  expect(etas(queue({ units: [['PENDING']] }), { medianRunMs: 10 * MIN, failureRate: 0, flakeRate: 0.2 })).toEqual([at(12)]);
});

test('no finished run yet: no estimate rather than a made-up constant', () => {
  expect(etas(queue({ units: [['PENDING']] }), ciHistoryOf([]))).toEqual(['no_ci_history']);
});

test('the history is the recent run times, their median, and the failure and flake shares of recent runs', () => {
  const run = (minutes: number, status: TestRun['status'], attempt = 0, prs = 1) =>
    ({ kind: 'main', status, attempt, createdAt: at(-minutes), finishedAt: at(0), prs: new Array(prs).fill({}), dependencyEntryIds: new Array(prs - 1).fill('ahead') }) as TestRun;
  expect(ciHistoryOf([run(8, 'passed'), run(10, 'failed'), run(12, 'passed', 1), run(30, 'cancelled')])).toEqual({
    medianRunMs: 10 * MIN,
    failureRate: 0.5,
    flakeRate: 1 / 3,
    breakRate: 0.5,
    durationsMs: [8 * MIN, 10 * MIN, 12 * MIN],
  });
  // Parallel mode: runs of four PRs each (a lane of three ahead) fail half the time: each PR breaks them 1 − 0.5^¼ ≈ 16% of the time.
  expect(ciHistoryOf([run(8, 'passed', 0, 4), run(10, 'failed', 0, 4)], { lanes: true }).breakRate).toBeCloseTo(1 - 0.5 ** 0.25, 6);
});

test('a run in flight still needs the median of the recent runs longer than it has already run', () => {
  const history: CiHistory = { medianRunMs: 20 * MIN, failureRate: 0, flakeRate: 0, durationsMs: [10, 15, 20, 30, 60].map((m) => m * MIN) };
  // 12 minutes in: the runs longer than that took 15, 20, 30 or 60 minutes; their median is 30 → 18 more minutes.
  expect(etas(queue({ units: [['TESTING']], running: { 0: 12 } }), history)).toEqual([at(18)]);
  // 40 minutes in: only the 60-minute run was longer → 20 more, not "already late, so now".
  expect(etas(queue({ units: [['TESTING']], running: { 0: 40 } }), history)).toEqual([at(20)]);
  // Longer than any recent run: now.
  expect(etas(queue({ units: [['TESTING']], running: { 0: 70 } }), history)).toEqual([at(0)]);
});

describe('the 80% range', () => {
  const spread: CiHistory = { medianRunMs: 20 * MIN, failureRate: 0, flakeRate: 0, durationsMs: [10, 12, 15, 18, 20, 22, 25, 30, 40, 60].map((m) => m * MIN) };
  const rangeOf = (doc: Doc, history: CiHistory) => {
    const estimate = estimateMergeTimes(doc, history, NOW).get(doc.entries[doc.entries.length - 1]!.id)!;
    const range = estimate.estimatedMergeRange!;
    return { at: estimate.estimatedMergeAt!, earliest: range.earliest, latest: range.latest, confidence: range.confidence };
  };

  test('a run just started: between the 10th and 90th percentiles of the recent run times, holding the point', () => {
    const r = rangeOf(queue({ units: [['TESTING']], running: { 0: 0 } }), spread);
    expect(r).toEqual({ at: at(22), earliest: at(12), latest: at(40), confidence: 0.8 });
  });

  test('a run in flight: only the recent runs longer than it has run count, so the range narrows from below', () => {
    // 21 minutes in: the runs of 22, 25, 30, 40 and 60 minutes are left → 1 to 39 more minutes.
    const r = rangeOf(queue({ units: [['TESTING']], running: { 0: 21 } }), spread);
    expect(r.earliest).toBe(at(1));
    expect(r.latest).toBe(at(39));
  });

  test('failures ahead and flake reruns push the far end out, not the near one', () => {
    const doc = () => queue({ units: [['TESTING'], ['TESTING']], running: { 0: 0, 1: 0 }, settings: { concurrency: 2 } });
    const calm = rangeOf(doc(), spread);
    const rough = rangeOf(doc(), { ...spread, failureRate: 0.3, flakeRate: 0.1 });
    expect(Date.parse(rough.latest)).toBeGreaterThan(Date.parse(calm.latest) + 10 * MIN);
    expect(Date.parse(rough.earliest)).toBeLessThanOrEqual(Date.parse(calm.earliest) + 5 * MIN);
  });

  test('with optimistic merging, a PR merges once a run behind it, built on it, passes: its range moves in', () => {
    // The PR's run has just started; the run behind it (which holds it) has run 21 minutes already.
    const doc = (canOptimisticallyMerge: boolean) =>
      queue({ units: [['TESTING'], ['TESTING']], running: { 0: 0, 1: 21 }, settings: { concurrency: 2, canOptimisticallyMerge } });
    const first = (d: Doc) => estimateMergeTimes(d, spread, NOW).get('e0.0')!.estimatedMergeRange!;
    // On its own run alone: the 90th percentile of all recent runs, 40 to 60 minutes.
    expect(Date.parse(first(doc(false)).latest)).toBeGreaterThanOrEqual(Date.parse(at(40)));
    // By the time either run passes: the one behind has 1 to 39 minutes left.
    expect(Date.parse(first(doc(true)).latest)).toBeLessThanOrEqual(Date.parse(at(39)));
  });

  test('a PR that passed merges now: its range is a point; so is any range without recent run times to spread', () => {
    expect(rangeOf(queue({ units: [['TESTS_PASSED']] }), spread)).toEqual({ at: at(0), earliest: at(0), latest: at(0), confidence: 0.8 });
    expect(rangeOf(queue({ units: [['PENDING']] }), tenMinutes)).toEqual({ at: at(10), earliest: at(10), latest: at(10), confidence: 0.8 });
  });

  test('a history of nothing but flake reruns still gives a range (at most three reruns drawn)', () => {
    const r = rangeOf(queue({ units: [['TESTING']], running: { 0: 0 } }), { ...spread, flakeRate: 1 });
    expect(Date.parse(r.latest)).toBeLessThanOrEqual(Date.parse(at(4 * 60)));
  });

  test('no estimate, no range', () => {
    const estimate = estimateMergeTimes(queue({ units: [['PENDING']], state: 'paused' }), spread, NOW).get('e0.0');
    expect(estimate?.estimatedMergeRange).toBeNull();
  });

  test('the same queue and history give the same range', () => {
    const doc = queue({ units: [['TESTING'], ['PENDING'], ['PENDING']], running: { 0: 3 } });
    expect(rangeOf(doc, { ...spread, failureRate: 0.2, flakeRate: 0.1 })).toEqual(rangeOf(doc, { ...spread, failureRate: 0.2, flakeRate: 0.1 }));
  });

  test('calibrated: runs drawn from the distribution of the recent ones end inside the range of a run just started about 80% of the time', () => {
    const random = new Random(7);
    const logNormal = () => 30 * MIN * Math.exp(0.54 * random.normal());
    const history: CiHistory = { medianRunMs: 30 * MIN, failureRate: 0, flakeRate: 0, durationsMs: Array.from({ length: 50 }, logNormal).sort((a, b) => a - b) };
    const r = rangeOf(queue({ units: [['TESTING']], running: { 0: 0 } }), history);
    const runs = Array.from({ length: 2000 }, logNormal);
    const inside = runs.filter((ms) => NOW.getTime() + ms >= Date.parse(r.earliest) && NOW.getTime() + ms <= Date.parse(r.latest)).length / runs.length;
    expect(inside).toBeGreaterThan(0.72);
    expect(inside).toBeLessThan(0.88);
  });
});

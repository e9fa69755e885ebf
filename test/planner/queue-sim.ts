import type { QueueSettings } from '../../src/domain/settings.js';
import { isActive } from '../../src/domain/states.js';
import { Harness } from './harness.js';

/**
 * A small discrete-event simulation of one queue over the real planner (the project's simulator in
 * src/sim does this at scale with the real engine): Poisson arrivals, log-normal CI durations, bad
 * PRs that fail every run they are in, and flaky runs.
 */
export interface SimOptions {
  prs: number;
  perHour: number;
  badRate: number;
  flakeRate: number;
  medianCiMinutes: number;
  p90CiMinutes: number;
  seed: number;
  settings: Partial<QueueSettings>;
}

export interface SimResult {
  merged: number;
  goodFailed: number;
  good: number;
  badMerged: number;
  unresolved: number;
  p50Minutes: number;
  oracleP50Minutes: number;
  runsPerMerged: number;
  slowestPlanMs: number;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor(s.length / 2)]!;
}

export function simulate(o: SimOptions): SimResult {
  const rnd = mulberry32(o.seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  const sigma = Math.log(o.p90CiMinutes / o.medianCiMinutes) / 1.2816;
  const ciMinutes = () => o.medianCiMinutes * Math.exp(sigma * normal());

  const h = new Harness({ testingTimeoutMinutes: 10080, ...o.settings });
  const start = h.now.getTime();
  const bad = new Set<number>();
  const arrivals: { at: number; pr: number }[] = [];
  let t = start;
  for (let pr = 1; pr <= o.prs; pr++) {
    t += (-Math.log(1 - rnd()) / o.perHour) * 3_600_000;
    arrivals.push({ at: t, pr });
    if (rnd() < o.badRate) bad.add(pr);
  }
  const arrivedAt = new Map(arrivals.map((a) => [a.pr, a.at]));
  const finishAt = new Map<string, number>();
  const mergedAt = new Map<number, number>();
  const closeBooks = t + 240 * 60_000;
  let runsStarted = 0;
  let nextArrival = 0;

  const schedule = () => {
    for (const run of h.q.runs) {
      if (run.status === 'pending' && !finishAt.has(run.id)) {
        finishAt.set(run.id, h.now.getTime() + ciMinutes() * 60_000);
        runsStarted++;
      }
    }
    for (const m of h.merges) if (!mergedAt.has(m.prNumber)) mergedAt.set(m.prNumber, h.now.getTime());
  };

  for (;;) {
    let nextRun: { id: string; at: number } | null = null;
    for (const run of h.q.runs) {
      const at = finishAt.get(run.id);
      if (run.status === 'pending' && at !== undefined && (!nextRun || at < nextRun.at)) nextRun = { id: run.id, at };
    }
    const arrival = arrivals[nextArrival];
    const nextAt = Math.min(arrival?.at ?? Infinity, nextRun?.at ?? Infinity);
    if (nextAt === Infinity || nextAt > closeBooks) break;
    h.now = new Date(nextAt);
    if (arrival && arrival.at === nextAt) {
      nextArrival++;
      h.submit(arrival.pr);
    } else if (nextRun) {
      const run = h.q.runs.find((r) => r.id === nextRun!.id)!;
      const ok = run.prs.every((p) => !bad.has(p.prNumber)) && rnd() >= o.flakeRate;
      h.report(run, ok ? 'success' : 'failure');
    }
    schedule();
  }

  const latest = new Map<number, string>();
  for (const e of h.q.entries) latest.set(e.prNumber, e.state);
  const goodPrs = arrivals.filter((a) => !bad.has(a.pr));
  return {
    merged: mergedAt.size,
    good: goodPrs.length,
    goodFailed: goodPrs.filter((a) => latest.get(a.pr) === 'FAILED').length,
    badMerged: [...mergedAt.keys()].filter((pr) => bad.has(pr)).length,
    unresolved: h.q.entries.filter((e) => isActive(e.state)).length,
    p50Minutes: median([...mergedAt].map(([pr, at]) => (at - arrivedAt.get(pr)!) / 60_000)),
    oracleP50Minutes: median(goodPrs.map(() => ciMinutes())),
    runsPerMerged: runsStarted / Math.max(1, mergedAt.size),
    slowestPlanMs: h.slowestPlanMs,
  };
}


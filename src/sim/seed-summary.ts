import type { StrategyResult } from './measure.js';

/** One figure of a strategy over several seeds: its median and its range. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** A strategy's headline figures over several seeds (benchmarks.md: "report medians"). */
export interface SeedSummary {
  name: string;
  seeds: number;
  p50VsOracle: Spread;
  ciRunsPerMerged: Spread;
  /** Good PRs failed ÷ good PRs, in percent. */
  flakeVictimsPct: Spread;
  badMerged: number;
  /** Of the seeds, how many the strategy kept up on. */
  keptUp: number;
}

/**
 * Rows of several seeds (each seed's strategies, in any order) summarized per strategy. A seed the
 * strategy did not keep up on still counts its figures: they cover the hours simulated.
 */
export function summarizeSeeds(perSeed: readonly (readonly StrategyResult[])[]): SeedSummary[] {
  const byName = new Map<string, StrategyResult[]>();
  for (const rows of perSeed) {
    for (const r of rows) {
      const list = byName.get(r.name) ?? [];
      list.push(r);
      byName.set(r.name, list);
    }
  }
  return [...byName].map(([name, rows]) => ({
    name,
    seeds: rows.length,
    p50VsOracle: spread(rows.map((r) => r.p50VsOracle)),
    ciRunsPerMerged: spread(rows.map((r) => r.ciRunsPerMerged)),
    flakeVictimsPct: spread(rows.map((r) => r.extra.goodFailedRate * 100)),
    badMerged: rows.reduce((n, r) => n + r.badMerged, 0),
    keptUp: rows.filter((r) => r.keptUp).length,
  }));
}

/** Median (the mean of the two middle values for an even count), minimum and maximum. */
export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new RangeError('spread of no values');
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]! };
}

/** A seed range as the command line gives it: `N` or `A-B` (inclusive). */
export function parseSeedRange(text: string): number[] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  if (!m) throw new RangeError(`seeds must be N or A-B, got "${text}"`);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (to < from) throw new RangeError(`seed range ${text} is empty`);
  if (to - from >= 1000) throw new RangeError(`seed range ${text} is longer than 1,000 seeds`);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

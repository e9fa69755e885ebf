import type { StrategyResult } from './measure.js';
import type { SeedSummary, Spread } from './seed-summary.js';

const COLUMNS: [string, (r: StrategyResult) => string][] = [
  ['strategy', (r) => r.name],
  ['merged/h', (r) => r.mergedPerHour.toFixed(1)],
  ['p50 min', (r) => r.timeInQueueP50Min.toFixed(1)],
  ['p95 min', (r) => r.timeInQueueP95Min.toFixed(1)],
  ['p50/oracle', (r) => r.p50VsOracle.toFixed(2)],
  ['CI runs/merged', (r) => r.ciRunsPerMerged.toFixed(2)],
  ['bystanders/merged', (r) => (r.extra.verdicts === undefined || r.merged === 0 ? '-' : ((r.extra.verdicts.bystander ?? 0) / r.merged).toFixed(2))],
  ['merged', (r) => String(r.merged)],
  ['failed', (r) => String(r.failed)],
  ['good failed', (r) => `${r.goodFailed} (${(r.extra.goodFailedRate * 100).toFixed(1)}%)`],
  ['bad merged', (r) => String(r.badMerged)],
  ['backlog', (r) => String(r.backlogAtEnd)],
  ['kept up', keptUp],
  ['wall s', (r) => (r.extra.wallSeconds === undefined ? '-' : r.extra.wallSeconds.toFixed(1))],
];

function keptUp(r: StrategyResult): string {
  if (r.keptUp) return 'yes';
  if (r.extra.stoppedAtMinutes === undefined) return 'NO';
  const why = r.extra.stoppedBecause === 'ci_work' ? 'CI work' : 'backlog';
  return `NO, stopped at ${(r.extra.stoppedAtMinutes / 60).toFixed(0)} h (${why})`;
}

const SEED_COLUMNS: [string, (r: SeedSummary) => string][] = [
  ['strategy', (r) => r.name],
  ['seeds', (r) => String(r.seeds)],
  ['p50/oracle median (range)', (r) => spreadText(r.p50VsOracle, 2)],
  ['CI runs/merged median (range)', (r) => spreadText(r.ciRunsPerMerged, 2)],
  ['good failed % median (range)', (r) => spreadText(r.flakeVictimsPct, 2)],
  ['bad merged', (r) => String(r.badMerged)],
  ['kept up', (r) => `${r.keptUp}/${r.seeds}`],
];

function spreadText(s: Spread, digits: number): string {
  return `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
}

/** A plain-text table of benchmark rows. */
export function formatTable(rows: readonly StrategyResult[]): string {
  return textTable(COLUMNS, rows);
}

/** A plain-text table of strategies summarized over several seeds. */
export function formatSeedTable(rows: readonly SeedSummary[]): string {
  return textTable(SEED_COLUMNS, rows);
}

export function textTable<R>(columns: readonly [string, (r: R) => string][], rows: readonly R[]): string {
  const cells = [columns.map(([h]) => h), ...rows.map((r) => columns.map(([, f]) => f(r)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/**
 * Each strategy's verdicts (docs/verdicts.md) as shares of all it gave, most frequent first:
 * `single: bystander 78% (412), culprit 12% (63), flaky 10% (51)`.
 */
export function formatVerdictShares(rows: readonly StrategyResult[]): string {
  return rows
    .map((r) => {
      const counts = Object.entries(r.extra.verdicts ?? {}).sort((a, b) => b[1] - a[1]);
      const total = counts.reduce((sum, [, n]) => sum + n, 0);
      const shares = counts.map(([code, n]) => `${code} ${Math.round((n / total) * 100)}% (${n})`).join(', ');
      return `${r.name}: verdicts ${total === 0 ? 'none' : shares}`;
    })
    .join('\n');
}

export function describeSettings(settings: StrategyResult['settings']): string {
  if (!settings) return '';
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join(' ');
}

/**
 * The storm scenario: CI runs that merged nothing (runs started − PRs merged: every merge needs one
 * run, any other run was spent on a failure, a restart or a rerun), and the PRs left held or queued.
 */
export function formatWaste(rows: readonly StrategyResult[]): string {
  return rows
    .filter((r) => r.settings)
    .map((r) => {
      const runs = r.extra.ciRuns;
      const storms = r.extra.storms ? `, ${r.extra.storms.count} storm(s) lasting ${r.extra.storms.minutes} min in all` : '';
      return `${r.name}: ${runs} CI runs, ${r.merged} merged, ${runs - r.merged} runs wasted (${((runs - r.merged) / Math.max(1, r.merged)).toFixed(2)} per merged PR), ${r.backlogAtEnd} left in the queue${storms}`;
    })
    .join('\n');
}

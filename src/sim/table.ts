import type { StrategyResult } from './measure.js';

const COLUMNS: [string, (r: StrategyResult) => string][] = [
  ['strategy', (r) => r.name],
  ['merged/h', (r) => r.mergedPerHour.toFixed(1)],
  ['p50 min', (r) => r.timeInQueueP50Min.toFixed(1)],
  ['p95 min', (r) => r.timeInQueueP95Min.toFixed(1)],
  ['p50/oracle', (r) => r.p50VsOracle.toFixed(2)],
  ['CI runs/merged', (r) => r.ciRunsPerMerged.toFixed(2)],
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

/** A plain-text table of benchmark rows. */
export function formatTable(rows: readonly StrategyResult[]): string {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function describeSettings(settings: StrategyResult['settings']): string {
  if (!settings) return '';
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}

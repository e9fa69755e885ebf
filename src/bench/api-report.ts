import { cpus } from 'node:os';
import type { RssReport } from './ipc.js';
import { poolLoads, type LoadResult } from './load.js';

export interface MeasuredCase {
  name: string;
  /** The baseline case this one is compared with; a baseline is compared with itself. */
  baseline: string;
  /** One run per round; round i of a case and of its baseline ran minutes apart at most. */
  runs: LoadResult[];
  note?: string;
}

export interface CaseReport {
  name: string;
  baseline: string;
  /** Over all rounds: 2xx responses ÷ wall time, and percentiles of every 2xx latency. */
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Median over rounds of (this case ÷ its baseline in the same round). */
  rpsVsBaseline: number;
  p50VsBaseline: number;
  rounds: { requestsPerSec: number; p50Ms: number; p99Ms: number; rpsVsBaseline: number; p50VsBaseline: number }[];
  /** 2xx responses the figures are computed from. */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts (no response at all). */
  errors: number;
  statusCodes: Record<string, number>;
  note?: string;
}

export interface ApiBenchReport {
  machine: { cpus: number; cpuModel: string; node: string; platform: string };
  settings: Record<string, number>;
  cases: CaseReport[];
  /** The service's peak RSS while accepting 20 MiB bodies (kernel VmHWM when available, else sampled). */
  peakRssMbDuring20MiBBodies: number;
  /** The same for the express baseline parsing the same bodies. */
  baselinePeakRssMbDuring20MiBBodies: number;
  rss: { mergeq: RssReport; baseline: RssReport };
}

export function buildReport(
  measured: readonly MeasuredCase[],
  rss: { mergeq: RssReport; baseline: RssReport },
  settings: Record<string, number>,
): ApiBenchReport {
  const byName = new Map(measured.map((m) => [m.name, m.runs]));
  const cases = measured.map((m): CaseReport => {
    const baseRuns = byName.get(m.baseline);
    if (!baseRuns || baseRuns.length !== m.runs.length) throw new Error(`case ${m.name} has no baseline ${m.baseline} with as many rounds`);
    const rounds = m.runs.map((run, i) => ({
      requestsPerSec: round(run.requestsPerSec, 1),
      p50Ms: round(run.p50Ms, 3),
      p99Ms: round(run.p99Ms, 3),
      rpsVsBaseline: round(run.requestsPerSec / baseRuns[i]!.requestsPerSec, 4),
      p50VsBaseline: round(run.p50Ms / baseRuns[i]!.p50Ms, 3),
    }));
    const pooled = poolLoads(m.runs);
    return {
      name: m.name,
      baseline: m.baseline,
      requestsPerSec: round(pooled.requestsPerSec, 1),
      p50Ms: round(pooled.p50Ms, 3),
      p99Ms: round(pooled.p99Ms, 3),
      rpsVsBaseline: median(rounds.map((r) => r.rpsVsBaseline)),
      p50VsBaseline: median(rounds.map((r) => r.p50VsBaseline)),
      rounds,
      ok: pooled.ok,
      non2xx: pooled.non2xx,
      errors: pooled.errors,
      statusCodes: pooled.statusCodes,
      ...(m.note ? { note: m.note } : {}),
    };
  });
  const cpuList = cpus();
  return {
    machine: { cpus: cpuList.length, cpuModel: cpuList[0]?.model ?? 'unknown', node: process.version, platform: process.platform },
    settings,
    cases,
    peakRssMbDuring20MiBBodies: round(peakMb(rss.mergeq), 1),
    baselinePeakRssMbDuring20MiBBodies: round(peakMb(rss.baseline), 1),
    rss,
  };
}

export function peakMb(report: RssReport): number {
  return report.kernelPeakMb ?? report.sampledPeakMb;
}

const COLUMNS: [string, (c: CaseReport) => string][] = [
  ['case', (c) => c.name],
  ['req/s', (c) => fixed(c.requestsPerSec, c.requestsPerSec < 100 ? 1 : 0)],
  ['p50 ms', (c) => fixed(c.p50Ms, 2)],
  ['p99 ms', (c) => fixed(c.p99Ms, 2)],
  ['req/s ÷ base', (c) => fixed(c.rpsVsBaseline, 3)],
  ['p50 ÷ base', (c) => fixed(c.p50VsBaseline, 2)],
  ['÷ base per round (req/s)', (c) => c.rounds.map((r) => fixed(r.rpsVsBaseline, 3)).join(' ')],
  ['2xx', (c) => String(c.ok)],
  ['non-2xx', (c) => (c.non2xx === 0 ? '0' : `${c.non2xx} ${JSON.stringify(nonOkCodes(c.statusCodes))}`)],
  ['errors', (c) => String(c.errors)],
  ['baseline', (c) => (c.baseline === c.name ? '(itself)' : c.baseline)],
];

/** The results as a plain-text table, with the notes and memory figures below it. */
export function formatReport(report: ApiBenchReport): string {
  const cells = [COLUMNS.map(([h]) => h), ...report.cases.map((c) => COLUMNS.map(([, f]) => f(c)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  const lines = [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)];
  for (const c of report.cases) if (c.note) lines.push(`  ${c.name}: ${c.note}`);
  lines.push('', `peak RSS while accepting 20 MiB bodies: mergeq ${report.peakRssMbDuring20MiBBodies} MB, express baseline ${report.baselinePeakRssMbDuring20MiBBodies} MB`);
  for (const [who, r] of Object.entries(report.rss)) {
    lines.push(
      `  ${who}: RSS ${fixed(r.beforeMb, 1)} MB before; peak ${r.kernelPeakMb === null ? 'n/a' : `${fixed(r.kernelPeakMb, 1)} MB`} (kernel VmHWM), ` +
        `${fixed(r.sampledPeakMb, 1)} MB (highest of ${r.samples} samples of process.memoryUsage.rss())`,
    );
  }
  return lines.join('\n');
}

/** The median of finite values (NaN, from a round without 2xx responses, is left out); NaN when none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function nonOkCodes(codes: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(codes).filter(([code]) => !code.startsWith('2')));
}

function fixed(n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : '-';
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

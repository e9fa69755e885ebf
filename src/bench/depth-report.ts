import type { BandMeasures, BandSettings } from './depth-band.js';
import type { HistogramSnapshot } from './depth-client.js';
import { percentile } from './load.js';

export interface BandReport {
  depth: number;
  /** PRs submitted (less than `depth` when the fill limit stopped it). */
  filled: number;
  settings: BandSettings;
  submit: {
    /** Over every submit of the fill (depth 0 to depth - 1). */
    p50Ms: number;
    p99Ms: number;
    /** Over the last 10% of the fill (at least 20 submits): the latency at this depth. */
    atDepthP50Ms: number;
    atDepthP99Ms: number;
    atDepthSamples: number;
  };
  /** From the service's mq_reconcile_duration_seconds, interpolated within buckets. */
  reconcile: { fillP50Ms: number; fillCount: number; drainP50Ms: number; drainCount: number };
  /** /proc/<pid>/stat utime + stime of the server process. */
  cpuSeconds: { fill: number; drain: number };
  /** /proc/<pid>/io of the server process: wchar (bytes passed to write calls) and write_bytes (to storage). */
  bytesWritten: { fillWchar: number; drainWchar: number; fillWriteBytes: number; drainWriteBytes: number };
  fillSeconds: number;
  /** The machine's 1-minute load average at the start of the fill and the end of the drain (2 cores here). */
  loadAverage: { start: number; end: number };
  drain: {
    merged: number;
    complete: boolean;
    seconds: number;
    mergesPerMinute: number;
    /** concurrency × 60 / CI seconds: what CI allows when every run passes. */
    ciAllowancePerMinute: number;
    shareOfAllowance: number;
    /** Calls the server could not take during the drain (resets, 408: too busy to read them in time), sent again. */
    pollTimeouts: number;
  };
}

export function bandReport(m: BandMeasures): BandReport {
  const all = [...m.submitMs].sort((a, b) => a - b);
  const tailCount = Math.min(m.submitMs.length, Math.max(20, Math.ceil(m.submitMs.length / 10)));
  const tail = m.submitMs.slice(-tailCount).sort((a, b) => a - b);
  const fill = diff(m.reconcile.afterFill, m.reconcile.beforeFill);
  const drain = diff(m.reconcile.afterDrain, m.reconcile.afterFill);
  const allowance = (m.settings.concurrency * 60) / m.settings.ciSeconds;
  const mergesPerMinute = m.drain.seconds > 0 ? (m.drain.merged * 60) / m.drain.seconds : 0;
  return {
    depth: m.settings.depth,
    filled: m.filled,
    settings: m.settings,
    submit: {
      p50Ms: percentile(all, 0.5),
      p99Ms: percentile(all, 0.99),
      atDepthP50Ms: percentile(tail, 0.5),
      atDepthP99Ms: percentile(tail, 0.99),
      atDepthSamples: tail.length,
    },
    reconcile: { fillP50Ms: quantileOf(fill, 0.5) * 1000, fillCount: fill.count, drainP50Ms: quantileOf(drain, 0.5) * 1000, drainCount: drain.count },
    cpuSeconds: { fill: m.usage.afterFill.cpuSeconds - m.usage.start.cpuSeconds, drain: m.usage.afterDrain.cpuSeconds - m.usage.afterFill.cpuSeconds },
    bytesWritten: {
      fillWchar: m.usage.afterFill.wcharBytes - m.usage.start.wcharBytes,
      drainWchar: m.usage.afterDrain.wcharBytes - m.usage.afterFill.wcharBytes,
      fillWriteBytes: m.usage.afterFill.writeBytes - m.usage.start.writeBytes,
      drainWriteBytes: m.usage.afterDrain.writeBytes - m.usage.afterFill.writeBytes,
    },
    fillSeconds: m.fillSeconds,
    loadAverage: m.loadAverage,
    drain: {
      merged: m.drain.merged,
      complete: m.drain.complete,
      seconds: m.drain.seconds,
      mergesPerMinute,
      ciAllowancePerMinute: allowance,
      shareOfAllowance: mergesPerMinute / allowance,
      pollTimeouts: m.drain.pollTimeouts,
    },
  };
}

function diff(after: HistogramSnapshot, before: HistogramSnapshot): HistogramSnapshot {
  return { bounds: after.bounds, cumulative: after.cumulative.map((n, i) => n - (before.cumulative[i] ?? 0)), count: after.count - before.count };
}

/** The q-quantile of a cumulative histogram, linear within its bucket (as Prometheus' histogram_quantile). */
export function quantileOf(h: HistogramSnapshot, q: number): number {
  if (h.count === 0) return Number.NaN;
  const rank = q * h.count;
  for (let i = 0; i < h.bounds.length; i++) {
    const upTo = h.cumulative[i] ?? 0;
    if (upTo < rank) continue;
    const lower = i === 0 ? 0 : (h.bounds[i - 1] ?? 0);
    const upper = h.bounds[i] ?? Number.POSITIVE_INFINITY;
    if (upper === Number.POSITIVE_INFINITY) return lower;
    const below = i === 0 ? 0 : (h.cumulative[i - 1] ?? 0);
    const inBucket = upTo - below;
    return inBucket === 0 ? upper : lower + ((upper - lower) * (rank - below)) / inBucket;
  }
  return Number.NaN;
}

export interface TargetCheck {
  target: string;
  value: string;
  met: boolean | null;
}

/** The targets of issue 17 (docs/benchmarks.md, "Depth"), where the bands they need were run. */
export function checkTargets(bands: readonly BandReport[]): TargetCheck[] {
  const at = (depth: number) => bands.find((b) => b.depth === depth);
  const small = at(100);
  const large = at(5000);
  const checks: TargetCheck[] = [];
  // A fill the limit stopped says what submits cost at the depth it reached: they only get dearer after.
  const reached = large && large.filled < large.depth ? ` at depth ${large.filled} (fill limit)` : '';
  if (large) {
    const p50 = large.submit.atDepthP50Ms;
    checks.push({ target: 'submit p50 at depth 5,000 ≤ 5 ms', value: `${ms(p50)} ms${reached}`, met: p50 <= 5 ? (reached ? null : true) : false });
  }
  if (large && small && !reached) {
    const ratio = large.submit.atDepthP50Ms / small.submit.atDepthP50Ms;
    checks.push({ target: 'submit p50 at 5,000 ≤ 3× at 100', value: `${ratio.toFixed(1)}×`, met: ratio <= 3 });
  }
  for (const b of bands) {
    checks.push({
      target: `drain at depth ${b.depth} ≥ 90% of CI allowance`,
      value: `${pct(b.drain.shareOfAllowance)}${b.drain.complete ? '' : ' (partial)'}`,
      met: b.drain.shareOfAllowance >= 0.9,
    });
  }
  if (large) {
    checks.push({
      target: 'bytes written draining 5,000 ≤ 1 GB (wchar)',
      value: `${gb(large.bytesWritten.drainWchar)} GB${large.drain.complete ? '' : ` for ${large.drain.merged} merged (partial)`}`,
      met: large.drain.complete ? large.bytesWritten.drainWchar <= 1e9 : large.bytesWritten.drainWchar > 1e9 ? false : null,
    });
  }
  return checks;
}

export function formatReport(bands: readonly BandReport[], checks: readonly TargetCheck[]): string {
  const header = ['depth', 'submit p50/p99 ms', 'at depth p50/p99 ms', 'reconcile p50 ms fill/drain', 'CPU s fill/drain', 'wchar MB fill/drain', 'write_bytes MB fill/drain', 'merged', 'drain s', 'merges/min', 'CI allows/min', 'share'];
  const rows = bands.map((b) => [
    b.filled === b.depth ? String(b.depth) : `${b.filled} of ${b.depth}`,
    `${ms(b.submit.p50Ms)} / ${ms(b.submit.p99Ms)}`,
    `${ms(b.submit.atDepthP50Ms)} / ${ms(b.submit.atDepthP99Ms)}`,
    `${ms(b.reconcile.fillP50Ms)} / ${ms(b.reconcile.drainP50Ms)}`,
    `${b.cpuSeconds.fill.toFixed(1)} / ${b.cpuSeconds.drain.toFixed(1)}`,
    `${mb(b.bytesWritten.fillWchar)} / ${mb(b.bytesWritten.drainWchar)}`,
    `${mb(b.bytesWritten.fillWriteBytes)} / ${mb(b.bytesWritten.drainWriteBytes)}`,
    `${b.drain.merged}/${b.filled}${b.drain.complete ? '' : ' (limit)'}`,
    b.drain.seconds.toFixed(1),
    b.drain.mergesPerMinute.toFixed(0),
    b.drain.ciAllowancePerMinute.toFixed(0),
    pct(b.drain.shareOfAllowance),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 0)).join('  ');
  const targets = checks.map((c) => `  ${c.met === null ? '?  ' : c.met ? 'met' : 'NOT'}  ${c.target}: ${c.value}`);
  return [line(header), ...rows.map(line), '', 'targets:', ...targets].join('\n');
}

function ms(v: number): string {
  return Number.isNaN(v) ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(0);
}
function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}
function gb(bytes: number): string {
  return (bytes / 1e9).toFixed(2);
}
function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}

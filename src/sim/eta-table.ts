import type { EtaErrors, RangeCalibration, StrategyResult } from './measure.js';

/**
 * One line per simulated strategy: the median over seeds of the ETA's median absolute error, as a
 * share of actual time in queue, at submission and at the start of the PR's last run; then how often
 * the 80% range held the merge, and how wide it was, at the same two moments.
 */
export function formatEtaErrors(perSeed: readonly (readonly StrategyResult[])[]): string {
  const names = [...new Set(perSeed.flatMap((rows) => rows.filter((r) => r.extra.etaErrors).map((r) => r.name)))];
  const median = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null;
  };
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);
  const errorLines: string[] = [];
  const rangeLines: string[] = [];
  for (const name of names) {
    const errors = perSeed.flatMap((r) => r.filter((x) => x.name === name).flatMap((x) => (x.extra.etaErrors ? [x.extra.etaErrors] : [])));
    const values = (get: (e: EtaErrors) => number | null | undefined) => errors.map(get).filter((v): v is number => typeof v === 'number');
    const pick = (get: (e: EtaErrors) => number | null | undefined) => median(values(get));
    const oneRun = `merged on one run: ${pct(pick((e) => e.oneRun?.share))} of PRs, at last-run start ${pct(pick((e) => e.oneRun?.atLastRunStart))}`;
    errorLines.push(`  ${name.padEnd(24)} at submission ${pct(pick((e) => e.atSubmission)).padStart(5)}   at last-run start ${pct(pick((e) => e.atLastRunStart)).padStart(5)}   (${oneRun})`);
    const moment = (get: (e: EtaErrors) => RangeCalibration | null | undefined) => {
      const coverage = values((e) => get(e)?.coverage);
      if (coverage.length === 0) return 'n/a';
      const spread = coverage.length > 1 ? ` (${pct(Math.min(...coverage))}–${pct(Math.max(...coverage))})` : '';
      const run = pick((e) => get(e)?.widthVsOneRun);
      const outside = `${pct(pick((e) => get(e)?.before))} merged before it, ${pct(pick((e) => get(e)?.after))} after`;
      return (
        `covers ${pct(median(coverage))}${spread} (${outside}), median width ${pick((e) => get(e)?.medianWidthMin)?.toFixed(0)} min = ` +
        `${pct(pick((e) => get(e)?.medianWidthShare))} of time in queue${run === null ? '' : `, ${run.toFixed(2)}× one run's p10–p90`}`
      );
    };
    rangeLines.push(`  ${name.padEnd(24)} at submission ${moment((e) => e.range?.atSubmission)}`);
    rangeLines.push(`  ${''.padEnd(24)} at last-run start ${moment((e) => e.range?.atLastRunStart)}`);
  }
  return [
    'ETA median absolute error, as a share of actual time in queue (merged PRs; median over seeds):',
    ...errorLines,
    '80% ETA range: share of merged PRs whose merge fell inside it (median over seeds; range), median width:',
    ...rangeLines,
  ].join('\n');
}

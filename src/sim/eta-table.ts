import type { EtaErrors } from './eta-error.js';
import type { StrategyResult } from './measure.js';

/**
 * One line per simulated strategy: the median over seeds of the ETA's median absolute error, as a
 * share of actual time in queue, at submission and at the start of the PR's last run.
 */
export function formatEtaErrors(perSeed: readonly (readonly StrategyResult[])[]): string {
  const names = [...new Set(perSeed.flatMap((rows) => rows.filter((r) => r.extra.etaErrors).map((r) => r.name)))];
  const median = (values: number[]) => {
    const sorted = values.sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null;
  };
  const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100)}%`);
  const lines = names.map((name) => {
    const rows = perSeed.flatMap((r) => r.filter((x) => x.name === name));
    const pick = (get: (e: EtaErrors) => number | null | undefined) =>
      median(rows.map((r) => (r.extra.etaErrors ? get(r.extra.etaErrors) : null)).filter((v): v is number => typeof v === 'number'));
    const oneRun = `merged on one run: ${pct(pick((e) => e.oneRun?.share))} of PRs, at last-run start ${pct(pick((e) => e.oneRun?.atLastRunStart))}`;
    return `  ${name.padEnd(24)} at submission ${pct(pick((e) => e.atSubmission)).padStart(5)}   at last-run start ${pct(pick((e) => e.atLastRunStart)).padStart(5)}   (${oneRun})`;
  });
  return ['ETA median absolute error, as a share of actual time in queue (merged PRs; median over seeds):', ...lines].join('\n');
}

import { Random } from '../../domain/random.js';

export { Random };

/** How long a CI run takes. */
export type DurationSpec =
  | { kind: 'fixed'; minutes: number }
  | { kind: 'lognormal'; medianMinutes: number; p90Minutes: number };

/** z of the 90th percentile of the standard normal. */
const Z90 = 1.2815515655446004;

export function drawMinutes(spec: DurationSpec, random: Random): number {
  if (spec.kind === 'fixed') return spec.minutes;
  const mu = Math.log(spec.medianMinutes);
  const sigma = (Math.log(spec.p90Minutes) - mu) / Z90;
  return Math.exp(mu + sigma * random.normal());
}

export function meanMinutes(spec: DurationSpec): number {
  if (spec.kind === 'fixed') return spec.minutes;
  const sigma = (Math.log(spec.p90Minutes) - Math.log(spec.medianMinutes)) / Z90;
  return spec.medianMinutes * Math.exp((sigma * sigma) / 2);
}

/** p90 − p10 of a run's length in minutes: how far apart the 80% of runs in the middle lie. */
export function spreadMinutes(spec: DurationSpec): number {
  if (spec.kind === 'fixed') return 0;
  // Log-normal: p10 and p90 sit as far below and above the median, on the log scale.
  return spec.p90Minutes - (spec.medianMinutes * spec.medianMinutes) / spec.p90Minutes;
}

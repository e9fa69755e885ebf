import type { MergeEstimate } from '../domain/eta.js';
import type { QueueDoc } from '../domain/queue.js';
import { isActive } from '../domain/states.js';
import { percentile, round } from './measure.js';
import type { EtaErrors, PrOutcome, RangeCalibration } from './measure.js';
import type { SimPr } from './workload.js';

/** What the queue said of one PR at one moment (epoch ms). */
interface Said {
  etaMs: number;
  earliestMs: number;
  latestMs: number;
}

/**
 * Keeps, for each PR, the first ETA the queue gave it (at submission, or as soon as one could be
 * given) and the ETA given when its last run started (re-taken at each new run that decides it),
 * each with its range.
 */
export class EtaRecorder {
  private readonly first = new Map<number, Said>();
  private readonly atRun = new Map<number, Said & { runId: string }>();
  private readonly runsSeen = new Map<number, number>();

  observe(doc: QueueDoc, estimates: ReadonlyMap<string, MergeEstimate>): void {
    for (const e of doc.entries) {
      if (!isActive(e.state)) continue;
      const estimate = estimates.get(e.id);
      if (!estimate?.estimatedMergeAt) continue;
      const etaMs = Date.parse(estimate.estimatedMergeAt);
      const range = estimate.estimatedMergeRange;
      const said = { etaMs, earliestMs: range ? Date.parse(range.earliest) : etaMs, latestMs: range ? Date.parse(range.latest) : etaMs };
      if (!this.first.has(e.prNumber)) this.first.set(e.prNumber, said);
      if (e.testRunId && this.atRun.get(e.prNumber)?.runId !== e.testRunId) {
        this.atRun.set(e.prNumber, { ...said, runId: e.testRunId });
        this.runsSeen.set(e.prNumber, (this.runsSeen.get(e.prNumber) ?? 0) + 1);
      }
    }
  }

  /**
   * `startMs`: the simulation's time zero (outcomes and arrivals are minutes after it);
   * `oneRunSpreadMin`: p90 − p10 of one CI run's length, the width a range cannot go below for a PR
   * whose time in queue is one run.
   */
  errors(prs: readonly SimPr[], outcomes: readonly PrOutcome[], startMs: number, oneRunSpreadMin?: number): EtaErrors {
    /** Each merged PR that was told something: what, its merge (minutes after start) and its time in queue. */
    const told = (said: (prNumber: number) => Said | undefined, only: (prNumber: number) => boolean = () => true) =>
      outcomes.flatMap((o, i) => {
        const given = said(i + 1);
        if (o.mergedAtMinutes === null || !only(i + 1) || given === undefined) return [];
        const inQueueMin = o.mergedAtMinutes - prs[i]!.arrivalMinutes;
        if (inQueueMin <= 0) return [];
        const minutes = (ms: number) => (ms - startMs) / 60_000;
        return [{ eta: minutes(given.etaMs), earliest: minutes(given.earliestMs), latest: minutes(given.latestMs), mergedAt: o.mergedAtMinutes, inQueueMin }];
      });
    const median = (values: number[]) => (values.length ? percentile(values.sort((a, b) => a - b), 0.5) : null);
    const shares = (said: (prNumber: number) => Said | undefined, only?: (prNumber: number) => boolean) => {
      const m = median(told(said, only).map((t) => Math.abs(t.eta - t.mergedAt) / t.inQueueMin));
      return m === null ? null : round(m, 3);
    };
    const calibration = (said: (prNumber: number) => Said | undefined): RangeCalibration | null => {
      const all = told(said);
      if (all.length === 0) return null;
      const widthMin = median(all.map((t) => t.latest - t.earliest))!;
      return {
        coverage: round(all.filter((t) => t.earliest <= t.mergedAt && t.mergedAt <= t.latest).length / all.length, 3),
        before: round(all.filter((t) => t.mergedAt < t.earliest).length / all.length, 3),
        after: round(all.filter((t) => t.mergedAt > t.latest).length / all.length, 3),
        medianWidthMin: round(widthMin, 1),
        medianWidthShare: round(median(all.map((t) => (t.latest - t.earliest) / t.inQueueMin))!, 3),
        widthVsOneRun: oneRunSpreadMin ? round(widthMin / oneRunSpreadMin, 2) : null,
      };
    };
    const firstSaid = (n: number) => this.first.get(n);
    const lastRun = (n: number) => this.atRun.get(n);
    const merged = outcomes.flatMap((o, i) => (o.mergedAtMinutes !== null && this.atRun.has(i + 1) ? [i + 1] : []));
    const oneRun = (n: number) => this.runsSeen.get(n) === 1;
    return {
      atSubmission: shares(firstSaid),
      atLastRunStart: shares(lastRun),
      oneRun: merged.length ? { share: round(merged.filter(oneRun).length / merged.length, 3), atLastRunStart: shares(lastRun, oneRun) } : null,
      range: { atSubmission: calibration(firstSaid), atLastRunStart: calibration(lastRun) },
    };
  }
}

import type { MergeEstimate } from '../domain/eta.js';
import type { QueueDoc } from '../domain/queue.js';
import { isActive } from '../domain/states.js';
import { percentile, round } from './measure.js';
import type { PrOutcome } from './measure.js';
import type { SimPr } from './workload.js';

/** Median absolute ETA error of the merged PRs, as a share of their time in queue; null when none merged with an estimate. */
export interface EtaErrors {
  atSubmission: number | null;
  atLastRunStart: number | null;
  /**
   * The merged PRs that needed one run of their own: their share of the merged PRs, and their error
   * at last-run start (= at submission, give or take a tick). Their time in queue is one CI run, whose
   * length nothing in the queue tells before it ends: this part of the error is the CI's own spread.
   */
  oneRun: { share: number; atLastRunStart: number | null } | null;
}

/**
 * Keeps, for each PR, the first ETA the queue gave it (at submission, or as soon as one could be
 * given) and the ETA given when its last run started (re-taken at each new run that decides it).
 */
export class EtaRecorder {
  private readonly first = new Map<number, number>();
  private readonly atRun = new Map<number, { runId: string; etaMs: number }>();
  private readonly runsSeen = new Map<number, number>();

  observe(doc: QueueDoc, estimates: ReadonlyMap<string, MergeEstimate>): void {
    for (const e of doc.entries) {
      if (!isActive(e.state)) continue;
      const at = estimates.get(e.id)?.estimatedMergeAt;
      if (!at) continue;
      const etaMs = Date.parse(at);
      if (!this.first.has(e.prNumber)) this.first.set(e.prNumber, etaMs);
      if (e.testRunId && this.atRun.get(e.prNumber)?.runId !== e.testRunId) {
        this.atRun.set(e.prNumber, { runId: e.testRunId, etaMs });
        this.runsSeen.set(e.prNumber, (this.runsSeen.get(e.prNumber) ?? 0) + 1);
      }
    }
  }

  /** `startMs`: the simulation's time zero (outcomes and arrivals are minutes after it). */
  errors(prs: readonly SimPr[], outcomes: readonly PrOutcome[], startMs: number): EtaErrors {
    const shares = (eta: (prNumber: number) => number | undefined, only: (prNumber: number) => boolean = () => true) => {
      const values: number[] = [];
      outcomes.forEach((o, i) => {
        if (o.mergedAtMinutes === null || !only(i + 1)) return;
        const given = eta(i + 1);
        const inQueueMin = o.mergedAtMinutes - prs[i]!.arrivalMinutes;
        if (given === undefined || inQueueMin <= 0) return;
        values.push(Math.abs((given - startMs) / 60_000 - o.mergedAtMinutes) / inQueueMin);
      });
      return values.length ? round(percentile(values.sort((a, b) => a - b), 0.5), 3) : null;
    };
    const lastRun = (n: number) => this.atRun.get(n)?.etaMs;
    const merged = outcomes.flatMap((o, i) => (o.mergedAtMinutes !== null && this.atRun.has(i + 1) ? [i + 1] : []));
    const oneRun = (n: number) => this.runsSeen.get(n) === 1;
    return {
      atSubmission: shares((n) => this.first.get(n)),
      atLastRunStart: shares(lastRun),
      oneRun: merged.length ? { share: round(merged.filter(oneRun).length / merged.length, 3), atLastRunStart: shares(lastRun, oneRun) } : null,
    };
  }
}

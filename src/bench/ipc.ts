import type { RepoRef } from '../domain/repo.js';

/** Messages between the benchmark (parent) and a server under test (a forked child). */

export type ServerKind = 'baseline' | 'mergeq';

/** The repository whose queues the service's child creates (its organization owns github.com/bench). */
export const BENCH_REPO: RepoRef = { host: 'github.com', owner: 'bench', name: 'widgets' };

export const BENCH_BRANCHES = {
  /** Starts empty: every request submits a new PR number. */
  submitNew: 'submit-new',
  /** Holds PRs 1..resubmitPrs: requests re-submit them (the idempotent path). */
  resubmit: 'resubmit',
  /** Holds `queuedPrs` active PRs, for getQueue. */
  getQueue: 'get-queue',
  /** Named by setImpactedTargets; its PR is not submitted (targets may come first). */
  targets: 'targets',
} as const;

/** What the service's child set up, so the load generator can address it. */
export interface MergeqFixture {
  token: string;
  resubmitPrs: number;
  queuedPrs: number;
}

export interface ReadyMessage {
  type: 'ready';
  port: number;
  fixture: MergeqFixture | null;
}

/** Peak resident memory of the child over a phase the parent opened with `rss-start`. */
export interface RssReport {
  type: 'rss';
  /** RSS when the phase began. */
  beforeMb: number;
  /** Highest `process.memoryUsage.rss()` sampled by a timer (misses peaks inside synchronous work). */
  sampledPeakMb: number;
  samples: number;
  /** The kernel's high-water mark (VmHWM) since the phase began; null where /proc cannot reset it. */
  kernelPeakMb: number | null;
}

export type ToServer = { type: 'rss-start' } | { type: 'rss-stop' } | { type: 'stop' };
export type FromServer = ReadyMessage | { type: 'rss-started' } | RssReport;

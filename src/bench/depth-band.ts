import { loadavg } from 'node:os';
import { ENDED_STATES, type PrState } from '../domain/states.js';
import { DEPTH_BRANCH, DEPTH_REPO, DepthClient, type HistogramSnapshot } from './depth-client.js';
import { DepthServer, type ProcessUsage } from './depth-server.js';

export interface BandSettings {
  depth: number;
  /** Queue concurrency: runs in flight. */
  concurrency: number;
  /** The sandbox CI's duration of every run (each PR is opened with this fixed duration). */
  ciSeconds: number;
  /** Stop waiting for the drain after this long and report the partial rate. */
  drainLimitSeconds: number;
  /** Stop submitting after this long: the queue is drained at the depth it reached. */
  fillLimitSeconds: number;
}

export interface BandMeasures {
  settings: BandSettings;
  /** Every submit's latency in ms, in submission order (the i-th was made at depth i - 1). */
  submitMs: number[];
  /** PRs submitted: `depth`, unless the fill limit stopped it earlier. */
  filled: number;
  /** The queue's reconcile histogram after the fill and after the drain. */
  reconcile: { beforeFill: HistogramSnapshot; afterFill: HistogramSnapshot; afterDrain: HistogramSnapshot };
  usage: { start: ProcessUsage; afterFill: ProcessUsage; afterDrain: ProcessUsage };
  fillSeconds: number;
  /** The machine's 1-minute load average at the start of the fill and at the end of the drain. */
  loadAverage: { start: number; end: number };
  drain: {
    merged: number;
    /** Resume to the last merge when all merged; resume to the limit otherwise. */
    seconds: number;
    complete: boolean;
    /** Calls the server could not take during the drain (resets, 408: too busy to read them in time), sent again. */
    pollTimeouts: number;
  };
}

const POLL_MS = 500;

/**
 * One depth band on a fresh server: a paused queue filled to `depth` PRs through submitPullRequest,
 * one request at a time, then resumed and drained (or stopped at the limit).
 */
export async function runBand(settings: BandSettings, log: (line: string) => void): Promise<BandMeasures> {
  const server = await DepthServer.start();
  const client = new DepthClient(server.url, server.token);
  try {
    const queue = { repo: DEPTH_REPO, targetBranch: DEPTH_BRANCH };
    await client.v1('createQueue', { ...queue, concurrency: settings.concurrency });
    await client.v1('updateQueue', { ...queue, state: 'paused' });
    const prNumbers: number[] = [];
    for (let i = 1; i <= settings.depth; i++) {
      prNumbers.push(await client.openPullRequest(`Depth change #${i}: tighten the widget pipeline retries`, settings.ciSeconds / 60));
    }

    const loadAtStart = loadavg()[0] ?? 0;
    const beforeFill = await client.reconcileHistogram();
    const start = server.usage();
    const fillStarted = performance.now();
    const submitMs: number[] = [];
    const fillDeadline = fillStarted + settings.fillLimitSeconds * 1000;
    for (const [i, number] of prNumbers.entries()) {
      if (performance.now() > fillDeadline) {
        log(`  depth ${settings.depth}: fill limit reached at ${i} submitted`);
        break;
      }
      const t0 = performance.now();
      await client.v1('submitPullRequest', { ...queue, pr: { number } });
      submitMs.push(performance.now() - t0);
      if ((i + 1) % 1000 === 0) {
        const last1000 = submitMs.slice(-1000).sort((a, b) => a - b);
        log(`  depth ${settings.depth}: ${i + 1} submitted, p50 of the last 1,000 ${(last1000[499] ?? 0).toFixed(1)} ms`);
      }
    }
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const afterFill = server.usage();
    const afterFillHistogram = await client.reconcileHistogram();

    const resumedAt = Date.now();
    await client.v1('updateQueue', { ...queue, state: 'running' });
    const filled = submitMs.length;
    const last = prNumbers[filled - 1];
    const deadline = resumedAt + settings.drainLimitSeconds * 1000;
    let complete = false;
    const unansweredBefore = client.unanswered;
    while (Date.now() < deadline) {
      // PRs merge in queue order: the last one ends last.
      const record = await client.v1<{ state: PrState }>('getSubmittedPullRequest', { ...queue, pr: { number: last } });
      if (ENDED_STATES.has(record.state)) {
        complete = true;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const stoppedAt = Date.now();
    const pollTimeouts = client.unanswered - unansweredBefore;
    const afterDrain = server.usage();
    const afterDrainHistogram = await client.reconcileHistogram();
    const pulls = await client.pulls();
    const mergedAt = pulls.filter((p) => p.state === 'merged' && p.mergedAt !== null).map((p) => Date.parse(p.mergedAt as string));
    const allMerged = complete && mergedAt.length === filled;
    const lastMerge = mergedAt.length > 0 ? Math.max(...mergedAt) : stoppedAt;
    return {
      settings,
      submitMs,
      filled,
      reconcile: { beforeFill, afterFill: afterFillHistogram, afterDrain: afterDrainHistogram },
      usage: { start, afterFill, afterDrain },
      fillSeconds,
      loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
      drain: { merged: mergedAt.length, seconds: ((allMerged ? lastMerge : stoppedAt) - resumedAt) / 1000, complete: allMerged, pollTimeouts },
    };
  } finally {
    client.close();
    await server.stop();
  }
}

import type { TestRun } from '../../src/domain/run.js';
import { submitPr } from './builders.js';
import type { Harness } from './harness.js';

/**
 * Stacked pull requests (docs/stacks.md): #1 targets the queue's branch, #2 is based on #1's branch,
 * and so on. Queued together they are one unit: tested once, landed bottom up, bisected by prefixes.
 */
export function submitStack(h: Harness, prs: number[], opts: { notReady?: number[]; id?: string } = {}): void {
  prs.forEach((n, i) => {
    const notReady = opts.notReady?.includes(n);
    h.q = submitPr(h.q, n, h.now, {
      stack: { id: opts.id ?? 'stack-1', position: i + 1 },
      readiness: { ...(i > 0 ? { doesBaseBranchMatch: false } : {}), ...(notReady ? { gitHubMergeability: 'NOT_MERGEABLE' as const, note: 'an approval is missing' } : {}) },
    }).queue;
  });
  h.settle();
}

/** Plays CI: every live run that holds one of `bad` fails, every other passes, until none is left. */
export function playCi(h: Harness, bad: number[]): TestRun[] {
  const all: TestRun[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const live = h.liveRuns();
    if (live.length === 0) return all;
    for (const run of live) {
      all.push(run);
      h.report(run, run.prs.some((p) => bad.includes(p.prNumber)) ? 'failure' : 'success');
    }
  }
  throw new Error('CI never settled');
}


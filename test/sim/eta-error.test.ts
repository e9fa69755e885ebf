import type { MergeEstimate } from '../../src/domain/eta.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { EtaRecorder } from '../../src/sim/eta-error.js';
import type { SimPr } from '../../src/sim/workload.js';

/** The ETA error the simulator reports: which estimate counts, and against what. */

const START = Date.UTC(2026, 0, 1);
const MIN = 60_000;

function observe(recorder: EtaRecorder, entries: { pr: number; state: Entry['state']; run: string | null; etaMin: number }[]) {
  const doc = { entries: entries.map((e) => ({ id: `e${e.pr}`, prNumber: e.pr, state: e.state, testRunId: e.run }) as Entry) } as QueueDoc;
  const estimates = new Map<string, MergeEstimate>(entries.map((e) => [`e${e.pr}`, { estimatedMergeAt: new Date(START + e.etaMin * MIN).toISOString(), estimatedMergeRange: null, reason: null }]));
  recorder.observe(doc, estimates);
}

test('the first estimate and the one given when the last run started count, each against the time in queue', () => {
  const recorder = new EtaRecorder();
  // PR 1 arrives at 0 and is told 30; its run fails (a flake) at 30 and is rerun, told 60; it merges at 50.
  // PR 2 arrives at 0, told 40, merges on its one run at 20.
  observe(recorder, [{ pr: 1, state: 'TESTING', run: 'r1', etaMin: 30 }, { pr: 2, state: 'TESTING', run: 'r2', etaMin: 40 }]);
  observe(recorder, [{ pr: 1, state: 'TESTING', run: 'r1', etaMin: 35 }, { pr: 2, state: 'TESTING', run: 'r2', etaMin: 45 }]);
  observe(recorder, [{ pr: 1, state: 'TESTING', run: 'r3', etaMin: 60 }]);
  const prs = [{ arrivalMinutes: 0 }, { arrivalMinutes: 0 }] as SimPr[];
  const errors = recorder.errors(prs, [{ state: 'MERGED', mergedAtMinutes: 50 }, { state: 'MERGED', mergedAtMinutes: 20 }], START);
  // At submission: |30-50|/50 = 0.4 and |40-20|/20 = 1; at last-run start 10/50 = 0.2 and 1 (the median of two is the lower).
  expect(errors.atSubmission).toBe(0.4);
  expect(errors.atLastRunStart).toBe(0.2);
  expect(errors.oneRun).toEqual({ share: 0.5, atLastRunStart: 1 });
});

test('a PR that never merged, or never got an estimate, is left out', () => {
  const recorder = new EtaRecorder();
  observe(recorder, [{ pr: 1, state: 'TESTING', run: 'r1', etaMin: 30 }]);
  const prs = [{ arrivalMinutes: 0 }, { arrivalMinutes: 5 }] as SimPr[];
  expect(recorder.errors(prs, [{ state: 'FAILED', mergedAtMinutes: null }, { state: 'MERGED', mergedAtMinutes: 40 }], START)).toEqual({
    atSubmission: null,
    atLastRunStart: null,
    oneRun: null,
    range: { atSubmission: null, atLastRunStart: null },
  });
});

test('the range counts a merge inside it, ends included, and reports its width in minutes, against time in queue and one run', () => {
  const recorder = new EtaRecorder();
  const told = (pr: number, eta: number, earliest: number, latest: number) => [
    `e${pr}`,
    { estimatedMergeAt: new Date(START + eta * MIN).toISOString(), estimatedMergeRange: { earliest: new Date(START + earliest * MIN).toISOString(), latest: new Date(START + latest * MIN).toISOString(), confidence: 0.8 }, reason: null },
  ] as const;
  const doc = (runs: [number, string][]) => ({ entries: runs.map(([pr, run]) => ({ id: `e${pr}`, prNumber: pr, state: 'TESTING', testRunId: run }) as Entry) }) as QueueDoc;
  // Three PRs arrive at 0. At submission: PR 1 told 20–40, PR 2 told 10–30, PR 3 told 30–50.
  recorder.observe(doc([[1, 'r1'], [2, 'r2'], [3, 'r3']]), new Map([told(1, 30, 20, 40), told(2, 20, 10, 30), told(3, 40, 30, 50)]));
  // PR 3 is rerun: at its last run's start it is told 55–65.
  recorder.observe(doc([[3, 'r4']]), new Map([told(3, 60, 55, 65)]));
  const prs = [{ arrivalMinutes: 0 }, { arrivalMinutes: 0 }, { arrivalMinutes: 0 }] as SimPr[];
  // PR 1 merges at 40 (the edge: inside), PR 2 at 40 (outside), PR 3 at 60 (outside its first range, inside its last).
  const outcomes = [40, 40, 60].map((m) => ({ state: 'MERGED' as const, mergedAtMinutes: m }));
  const { range } = recorder.errors(prs, outcomes, START, 40);
  expect(range.atSubmission).toEqual({ coverage: 0.333, before: 0, after: 0.667, medianWidthMin: 20, medianWidthShare: 0.5, widthVsOneRun: 0.5 });
  // Widths 20, 20, 10 → median 20; shares 0.5, 0.5, 10/60.
  expect(range.atLastRunStart).toEqual({ coverage: 0.667, before: 0, after: 0.333, medianWidthMin: 20, medianWidthShare: 0.5, widthVsOneRun: 0.5 });
});

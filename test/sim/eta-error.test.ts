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
  const estimates = new Map<string, MergeEstimate>(entries.map((e) => [`e${e.pr}`, { estimatedMergeAt: new Date(START + e.etaMin * MIN).toISOString(), reason: null }]));
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
  });
});

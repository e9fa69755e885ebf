import fc from 'fast-check';
import type { QueueSettings } from '../../src/domain/settings.js';
import { batchSettings, checkMerge, checkStep, driveToTheEnd, play, positionsSnapshot, settings, step, type World } from './model.js';
import { Harness } from './harness.js';

function randomHistories(config: fc.Arbitrary<Partial<QueueSettings>>): void {
  fc.assert(
    fc.property(config, fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }), fc.array(step, { minLength: 5, maxLength: 60 }), (cfg, badPrs, steps) => {
      const w: World = { h: new Harness(cfg), bad: new Set(badPrs), ended: new Map(), flakeVictims: 0, mergedElsewhere: new Set() };
      w.h.onMerge = (q, e) => checkMerge(w, q, e);
      for (const s of steps) {
        const before = positionsSnapshot(w.h.q);
        play(w, s);
        checkStep(w, before);
      }
      driveToTheEnd(w);
      checkStep(w, positionsSnapshot(w.h.q));
      for (const m of w.h.merges) expect(w.bad.has(m.prNumber)).toBe(false);
    }),
    { numRuns: Number(process.env.PLANNER_RUNS ?? 300) },
  );
}

test('random histories keep every queue invariant and never deadlock', () => {
  randomHistories(settings);
});

test('random histories with batching and bisection keep every queue invariant and never deadlock', () => {
  randomHistories(batchSettings);
});

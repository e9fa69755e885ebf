import fc from 'fast-check';
import type { QueueSettings } from '../../src/domain/settings.js';
import { isActive } from '../../src/domain/states.js';
import { Harness } from './harness.js';
import { batchSettings, checkMerge, settings, type World } from './model.js';
import { submitStack } from './stack-harness.js';

/**
 * Random stacks and single PRs (a stack of 1), some layers bad, CI flaking at random, single mode: whatever the
 * settings, no bad PR merges, every merge was tested with everything merged before it (checkMerge:
 * also past a failed stack being bisected), a layer merges only once every layer below it has, and
 * the queue always empties.
 */
type Step = { kind: 'stack'; size: number } | { kind: 'answer'; pick: number; flake: boolean } | { kind: 'advance' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('stack' as const), size: fc.integer({ min: 1, max: 5 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(), flake: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const) }) },
);

function answer(w: World, pick: number, flake: boolean): void {
  const live = w.h.liveRuns().filter((r) => r.status === 'pending');
  if (live.length === 0) return;
  const run = live[pick % live.length]!;
  w.h.report(run, run.prs.every((p) => !w.bad.has(p.prNumber)) && !flake ? 'success' : 'failure');
}

function randomStacks(config: fc.Arbitrary<Partial<QueueSettings>>): void {
  fc.assert(
    fc.property(config, fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 3 }), fc.array(step, { minLength: 3, maxLength: 40 }), (cfg, badPrs, steps) => {
      const w: World = { h: new Harness({ ...cfg, mode: 'single', directMergeMode: 'off' }), bad: new Set(badPrs), ended: new Map(), flakeVictims: 0, mergedElsewhere: new Set() };
      w.h.onMerge = (q, e) => checkMerge(w, q, e);
      const stacks: number[][] = [];
      let next = 1;
      for (const s of steps) {
        if (s.kind === 'stack') {
          const prs = Array.from({ length: s.size }, (_, i) => next + i);
          next += s.size;
          stacks.push(prs);
          submitStack(w.h, prs, { id: `stack-${prs[0]}` });
        } else if (s.kind === 'answer') {
          answer(w, s.pick, s.flake);
        } else {
          w.h.advance(31);
        }
      }
      for (let i = 0; i < 400 && w.h.q.entries.some((e) => isActive(e.state)); i++) {
        if (w.h.liveRuns().some((r) => r.status === 'pending')) answer(w, 0, false);
        else w.h.advance(61);
      }
      expect(w.h.q.entries.filter((e) => isActive(e.state)).map((e) => `#${e.prNumber} ${e.state} ${e.reason?.message}`)).toEqual([]);
      const merged = new Set(w.h.merges.map((m) => m.prNumber));
      for (const prs of stacks) {
        const landed = prs.map((n) => merged.has(n));
        // The layers that landed are a prefix of the stack.
        expect(landed).toEqual(prs.map((_, i) => landed.slice(0, i + 1).every(Boolean)));
      }
    }),
    { numRuns: Number(process.env.PLANNER_RUNS ?? 150) },
  );
}

test('random stacks keep every queue invariant, land layers bottom up and never deadlock', () => {
  randomStacks(settings);
});

test('random stacks with batching and bisection keep every queue invariant, land layers bottom up and never deadlock', () => {
  randomStacks(batchSettings);
});

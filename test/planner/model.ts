import fc from 'fast-check';
import { expect } from '@jest/globals';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import type { QueueSettings } from '../../src/domain/settings.js';
import type { PullRequestInfo } from '../../src/githost/githost.js';
import { isActive } from '../../src/domain/states.js';
import { archivable, plan } from '../../src/planner/index.js';
import { intersects } from '../../src/planner/parallel/target-set.js';
import { Harness } from './harness.js';

/**
 * Random histories through the real planner, with a fake CI that knows the truth: each PR is good or
 * bad, a run passes iff all its PRs are good, except flakes (a good run that fails anyway). The
 * invariants of queue-semantics.md are checked after every step and at every merge.
 */

export type Step =
  | { kind: 'submit'; pr: number; priority: 'urgent' | 'high' | 'medium' | 'low'; direct: boolean; noBatch: boolean; targets: 'ALL' | string[] }
  | { kind: 'answer'; pick: number; flake: boolean; results: TestResultsGiven }
  | { kind: 'cancel'; pick: number }
  | { kind: 'restart'; pick: number }
  | { kind: 'state'; state: 'running' | 'paused' | 'draining' }
  | { kind: 'advance'; minutes: number }
  | { kind: 'refuse'; pick: number; code: 'merge_conflict' | 'pr_updated' }
  | { kind: 'pushed'; pick: number }
  | { kind: 'mergeability'; pick: number; mergeable: boolean }
  | { kind: 'mergedElsewhere'; pick: number }
  | { kind: 'closed'; pick: number }
  | { kind: 'conflicting'; pr: number }
  | { kind: 'archive' };

/**
 * What test results come with a failing answer: none; honest ones (a flake fails a known flaky test, a
 * bad PR a test not known flaky); or results calling every failed test flaky — a detector that is
 * wrong must still never let a bad PR merge (a flake is only ever a reason to rerun).
 */
export type TestResultsGiven = 'none' | 'honest' | 'all_flaky';

export const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('submit' as const),
      pr: fc.integer({ min: 1, max: 12 }),
      priority: fc.constantFrom('urgent', 'high', 'medium', 'medium', 'medium', 'low'),
      direct: fc.boolean(),
      noBatch: fc.boolean(),
      // Impacted targets (read in parallel mode only): a few names from a small universe, or ALL.
      targets: fc.oneof(
        { weight: 1, arbitrary: fc.constant('ALL' as const) },
        { weight: 6, arbitrary: fc.subarray(['a', 'b', 'c', 'd', 'e']) },
      ),
    }),
  },
  { weight: 14, arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      pick: fc.nat(),
      flake: fc.boolean(),
      results: fc.constantFrom<TestResultsGiven>('none', 'honest', 'all_flaky'),
    }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('state' as const), state: fc.constantFrom('running', 'paused', 'draining', 'running') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.constantFrom(5, 30, 61) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('refuse' as const), pick: fc.nat(), code: fc.constantFrom('merge_conflict', 'pr_updated') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pushed' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('archive' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mergeability' as const), pick: fc.nat(), mergeable: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mergedElsewhere' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('closed' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('conflicting' as const), pr: fc.integer({ min: 1, max: 12 }) }) },
);

const everyQueue = {
  mode: fc.constantFrom('single' as const, 'parallel' as const),
  concurrency: fc.integer({ min: 1, max: 6 }),
  canOptimisticallyMerge: fc.boolean(),
  pendingFailureDepth: fc.constantFrom(0, 1, 2, 10),
  flakeRetries: fc.integer({ min: 0, max: 2 }),
  testingTimeoutMinutes: fc.constant(60),
  directMergeMode: fc.constantFrom('off' as const, 'always' as const),
};

export const settings: fc.Arbitrary<Partial<QueueSettings>> = fc.record(everyQueue);

/** The same, with batching and bisection on. */
export const batchSettings: fc.Arbitrary<Partial<QueueSettings>> = fc.record({
  ...everyQueue,
  batch: fc.constant(true),
  batchingMinSize: fc.integer({ min: 2, max: 5 }),
  batchingMaxWaitTimeMinutes: fc.constantFrom(0, 5, 30),
  bisectionConcurrency: fc.integer({ min: 1, max: 3 }),
  optimizationMode: fc.constantFrom('off' as const, 'bisection_skip_redundant_tests' as const),
});

export interface World {
  h: Harness;
  bad: Set<number>;
  /** Ended entries as first seen ended: they must never change again. */
  ended: Map<string, string>;
  flakeVictims: number;
  mergedElsewhere: Set<number>;
}

export function checkMerge(w: World, q: QueueDoc, e: Entry): void {
  const parallel = q.settings.mode === 'parallel';
  // Merges happen in queue order: everything ahead already merged — in parallel mode, everything
  // ahead that it depends on (shares a target with); in single mode, everything ahead but suspects
  // that the units behind them left out (docs/merging-past-suspects.md).
  const place = q.units.findIndex((u) => u.entryIds.includes(e.id));
  const ahead = q.units.slice(0, place).flatMap((u) => u.entryIds);
  if (parallel) {
    for (const id of ahead) expect(`${id} shares a target: ${dependsOn(w, e.id, id)}`).toBe(`${id} shares a target: false`);
  } else {
    expect(q.units[place]?.entryIds[0]).toBe(e.id);
    for (const id of ahead) expect(`${id}: ${q.entries.find((x) => x.id === id)?.state}`).toBe(`${id}: PENDING_FAILURE`);
  }
  expect(w.bad.has(e.prNumber)).toBe(false);
  expect(w.h.merges.some((m) => m.entryId === e.id || m.prNumber === e.prNumber)).toBe(false);
  const intent = e.mergeIntent!;
  if (intent.runId === null) {
    expect(e.readiness.containsTargetSha).toBe(q.targetSha);
    return;
  }
  const run = q.runs.find((r) => r.id === intent.runId)!;
  expect(run.status).toBe('passed');
  const ids = run.prs.map((p) => p.entryId);
  const at = ids.indexOf(e.id);
  expect(at).toBeGreaterThanOrEqual(0);
  const merged = w.h.merges.map((m) => m.entryId);
  // Everything before it in the tested run has merged...
  for (const id of ids.slice(0, at)) expect(merged).toContain(id);
  // ...and everything merged since its test branch was built was in it: the target branch after
  // this merge holds nothing the run did not test.
  const builtAfter = w.h.mergesAtBuild.get(run.id)!;
  for (const id of merged.slice(builtAfter)) if (!parallel || dependsOn(w, e.id, id)) expect(ids).toContain(id);
  // Without optimistic merging the run tested exactly what the target branch will hold: what merged
  // before, then its own unit (a batch merges one PR at a time).
  if (!q.settings.canOptimisticallyMerge) {
    const ownUnit = new Set(q.units.find((u) => u.entryIds.includes(e.id))!.entryIds);
    for (const id of ids) if (!ownUnit.has(id)) expect(merged).toContain(id);
  }
}

/** Whether two entries share an impacted target (parallel mode: then one depends on the other). */
function dependsOn(w: World, a: string, b: string): boolean {
  const ta = w.h.targets.get(a);
  const tb = w.h.targets.get(b);
  return ta === undefined || tb === undefined || intersects(ta, tb);
}

export function positionsSnapshot(q: QueueDoc): Map<string, number> {
  const m = new Map<string, number>();
  q.units.forEach((u, i) => u.entryIds.forEach((id) => m.set(id, i)));
  return m;
}

export function checkStep(w: World, before: Map<string, number>): void {
  const q = w.h.q;
  const byId = new Map(q.entries.map((e) => [e.id, e]));
  // Ended entries never change.
  for (const e of q.entries) {
    const json = JSON.stringify(e);
    if (!isActive(e.state)) {
      const seen = w.ended.get(e.id);
      if (seen === undefined) w.ended.set(e.id, json);
      else expect(json).toBe(seen);
    }
  }
  // Queue order holds exactly the ready active entries.
  const placed = new Set(q.units.flatMap((u) => u.entryIds));
  for (const e of q.entries) {
    const shouldBePlaced = isActive(e.state) && e.state !== 'NOT_READY';
    expect(placed.has(e.id)).toBe(shouldBePlaced);
  }
  // Relative order of units that stayed is kept, except a rerun that passed re-enters at the tail.
  const after = positionsSnapshot(q);
  const movedToTail = new Set(
    q.entries.filter((e) => e.history.some((t) => t.reason.code === 'retry_passed' || t.reason.code === 'ready')).map((e) => e.id),
  );
  const stayed = [...before.keys()].filter((id) => after.has(id) && !movedToTail.has(id));
  const beforeOrder = stayed.slice().sort((a, b) => before.get(a)! - before.get(b)!);
  const afterOrder = stayed.slice().sort((a, b) => after.get(a)! - after.get(b)!);
  expect(afterOrder).toEqual(beforeOrder);
  // The planner is at a fixed point after the engine loop.
  expect(plan({ queue: q, targets: w.h.targets }, w.h.now)).toEqual([]);
  // Every deciding run exists.
  for (const e of byId.values()) if (e.testRunId && isActive(e.state)) expect(q.runs.some((r) => r.id === e.testRunId)).toBe(true);
}

function answer(w: World, pick: number, flake: boolean, results: TestResultsGiven): void {
  const live = w.h.liveRuns().filter((r) => r.status === 'pending');
  if (live.length === 0) return;
  const run = live[pick % live.length]!;
  const good = run.prs.every((p) => !w.bad.has(p.prNumber));
  const passes = good && !flake;
  if (!passes && results !== 'none' && run.testBranchSha) {
    const flakyLabel = results === 'all_flaky' || good;
    w.h.testResults(run, [{ testCaseId: flakyLabel ? 'flaky' : 'broken', name: flakyLabel ? 'flaky test' : 'broken test', knownFlaky: flakyLabel, quarantined: false }]);
    if (w.h.q.runs.find((r) => r.id === run.id)?.status !== 'pending') return;
  }
  w.h.report(run, passes ? 'success' : 'failure');
}

export function activeEntries(q: QueueDoc): Entry[] {
  return q.entries.filter((e) => isActive(e.state));
}

function prInfo(e: Entry, patch: Partial<PullRequestInfo>): PullRequestInfo {
  return {
    number: e.prNumber,
    title: e.prTitle,
    headSha: e.prSha,
    baseBranch: 'main',
    author: 'dev',
    state: 'open',
    draft: false,
    mergeability: 'MERGEABLE',
    mergeCommitSha: null,
    ...patch,
  };
}

function pickActive(q: QueueDoc, pick: number): Entry | undefined {
  const active = activeEntries(q);
  return active.length === 0 ? undefined : active[pick % active.length];
}

export function play(w: World, s: Step): void {
  const h = w.h;
  switch (s.kind) {
    case 'submit': {
      if (h.q.entries.some((e) => e.prNumber === s.pr && isActive(e.state))) return;
      if (h.merges.some((m) => m.prNumber === s.pr) || w.mergedElsewhere.has(s.pr)) return;
      const direct = s.direct && !w.bad.has(s.pr);
      h.submit(s.pr, {
        targets: s.targets,
        priority: s.priority,
        noBatch: s.noBatch && s.pr % 3 === 0,
        sha: `pr${s.pr}-${h.q.nextSeq}`,
        readiness: direct ? { containsTargetSha: h.q.targetSha, ownChecksPassedSha: `pr${s.pr}-${h.q.nextSeq}` } : {},
      });
      return;
    }
    case 'answer':
      return answer(w, s.pick, s.flake, s.results);
    case 'cancel': {
      const e = pickActive(h.q, s.pick);
      if (e && !e.mergeIntent) h.cancel(e.prNumber);
      return;
    }
    case 'restart': {
      const e = pickActive(h.q, s.pick);
      if (e && !e.mergeIntent && ['TESTING', 'TESTS_PASSED', 'PENDING_FAILURE'].includes(e.state)) h.restart(e.prNumber);
      return;
    }
    case 'state':
      return h.setState(s.state);
    case 'advance':
      return h.advance(s.minutes);
    case 'refuse': {
      const e = pickActive(h.q, s.pick);
      if (e) h.refuseMerge.set(e.prNumber, s.code);
      return;
    }
    case 'pushed': {
      const e = pickActive(h.q, s.pick);
      if (!e) return;
      h.pullRequest({
        number: e.prNumber,
        title: e.prTitle,
        headSha: `${e.prSha}-new`,
        baseBranch: 'main',
        author: 'dev',
        state: 'open',
        draft: false,
        mergeability: 'MERGEABLE',
        mergeCommitSha: null,
      });
      return;
    }
    case 'mergeability': {
      const e = pickActive(h.q, s.pick);
      if (e) h.pullRequest(prInfo(e, { mergeability: s.mergeable ? 'MERGEABLE' : 'NOT_MERGEABLE' }));
      return;
    }
    case 'mergedElsewhere': {
      const e = pickActive(h.q, s.pick);
      // Only a good PR: a human merging a bad one breaks the target branch whatever the queue does.
      if (e && !w.bad.has(e.prNumber) && !e.mergeIntent) {
        const landedBefore = h.merges.map((m) => m.entryId);
        h.merges.push({ entryId: e.id, prNumber: e.prNumber, runId: null, landedBefore, elsewhere: true });
        h.pullRequest(prInfo(e, { state: 'merged', mergeCommitSha: `elsewhere-${e.prNumber}` }));
        w.mergedElsewhere.add(e.prNumber);
      }
      return;
    }
    case 'closed': {
      const e = pickActive(h.q, s.pick);
      if (e) h.pullRequest(prInfo(e, { state: 'closed' }));
      return;
    }
    case 'conflicting':
      // The PR does not merge onto the target branch: every test branch with it fails to build.
      if (h.q.entries.some((e) => e.prNumber === s.pr) || h.merges.some((m) => m.prNumber === s.pr)) return;
      w.bad.add(s.pr);
      h.conflicts.add(s.pr);
      return;
    case 'archive': {
      const old = archivable(h.q);
      const entryIds = new Set(old.entries.map((e) => e.id));
      const runIds = new Set(old.runs.map((r) => r.id));
      h.q = { ...h.q, entries: h.q.entries.filter((e) => !entryIds.has(e.id)), runs: h.q.runs.filter((r) => !runIds.has(r.id)) };
      h.settle();
      return;
    }
  }
}

/** CI answers truthfully and the queue runs: everything must end. */
export function driveToTheEnd(w: World): void {
  const h = w.h;
  h.refuseMerge.clear();
  h.setState('running');
  for (let i = 0; i < 500 && activeEntries(h.q).length > 0; i++) {
    for (const e of activeEntries(h.q)) {
      if (e.state !== 'NOT_READY') continue;
      h.pullRequest(prInfo(e, {}));
      h.targetsKnown(e.prNumber);
    }
    const live = h.liveRuns().filter((r) => r.status === 'pending');
    if (live.length === 0) {
      // Nothing in flight: only the clock can move things (none should be needed).
      h.advance(61);
      continue;
    }
    answer(w, 0, false, 'honest');
  }
  expect(activeEntries(h.q).map((e) => `#${e.prNumber} ${e.state}`)).toEqual([]);
}


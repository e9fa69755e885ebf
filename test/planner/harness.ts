import { cancelEntry, restartEntry, changeSettings } from '../../src/planner/index.js';
import type { Entry } from '../../src/domain/entry.js';
import type { QueueDoc } from '../../src/domain/queue.js';
import { reason } from '../../src/domain/reasons.js';
import type { CheckState, FailedTest, TestRun } from '../../src/domain/run.js';
import type { QueueSettings } from '../../src/domain/settings.js';
import type { SettableQueueState } from '../../src/domain/states.js';
import type { PullRequestInfo } from '../../src/githost/githost.js';
import {
  applyActions,
  plan,
  recordBranchDeleted,
  recordMergeRefused,
  recordMerged,
  recordImpactedTargets,
  recordPullRequest,
  recordRunConflict,
  recordRunCreated,
  recordStatusChecks,
  recordTestResults,
  type Action,
} from '../../src/planner/index.js';
import type { TargetSet } from '../../src/domain/targets.js';
import { TargetInterner } from '../../src/planner/parallel/interner.js';
import { emptyQueue, minutesAfter, submitPr, T0, type SubmitOptions } from './builders.js';

export interface MergeRecord {
  entryId: string;
  prNumber: number;
  /** The run that proved it (null for a direct merge). */
  runId: string | null;
  /** Entries merged before it, in order, when it merged. */
  landedBefore: string[];
  /** Merged outside the queue (by a person), as the git host reported. */
  elsewhere?: boolean;
}

/**
 * Plays the engine's role around the real planner: plan -> apply -> carry out what the document
 * asks (build test branches, merge in order, delete branches) by calling the fact functions, until
 * nothing is left to do. CI verdicts, clock jumps and client commands are driven by the test.
 */
export class Harness {
  q: QueueDoc;
  now: Date = T0;
  readonly merges: MergeRecord[] = [];
  readonly plans: Action[][] = [];
  /** The slowest plan() call so far, in milliseconds. */
  slowestPlanMs = 0;
  /** Merge refusals to play, by PR number. */
  readonly refuseMerge = new Map<number, 'merge_conflict' | 'pr_updated'>();
  /** Test branch conflicts to play: a run containing this PR cannot be built. */
  readonly conflicts = new Set<number>();
  /** How many merges had happened when each run's test branch was built. */
  readonly mergesAtBuild = new Map<string, number>();
  /** The base the git host answers for a build (by default the target head as the queue knows it). */
  builtOn: ((run: TestRun) => string) | null = null;
  /** Called before each merge with the document as it is then (property tests check invariants). */
  onMerge: ((q: QueueDoc, entry: Entry) => void) | null = null;

  constructor(settings: Partial<QueueSettings> = {}) {
    this.q = emptyQueue(settings);
  }

  /** Impacted targets by entry id, as the engine hands them to the planner (parallel mode). */
  readonly targets = new Map<string, TargetSet>();
  private readonly interner = new TargetInterner();

  submit(prNumber: number, opts: SubmitOptions = {}): Entry {
    const withTargets = opts.targets === undefined ? opts : { ...opts, readiness: { hasImpactedTargets: true, ...opts.readiness } };
    const { queue, entry } = submitPr(this.q, prNumber, this.now, withTargets);
    if (opts.targets !== undefined) {
      this.targets.set(entry.id, this.interner.toTargetSet(opts.targets === 'ALL' ? { all: true } : { all: false, targets: opts.targets }));
    }
    this.q = queue;
    this.settle();
    return this.q.entries.find((e) => e.id === entry.id)!;
  }

  /** The latest entry for the PR. */
  entry(prNumber: number): Entry {
    const all = this.q.entries.filter((e) => e.prNumber === prNumber);
    const e = all[all.length - 1];
    if (!e) throw new Error(`no entry for #${prNumber}`);
    return e;
  }

  state(prNumber: number): string {
    return this.entry(prNumber).state;
  }

  /** The run currently deciding the PR's entry. */
  runOf(prNumber: number): TestRun {
    const id = this.entry(prNumber).testRunId;
    const run = this.q.runs.find((r) => r.id === id);
    if (!run) throw new Error(`#${prNumber} has no run`);
    return run;
  }

  /** PR numbers of a run, in order. */
  prsOf(run: TestRun): number[] {
    return run.prs.map((p) => p.prNumber);
  }

  liveRuns(): TestRun[] {
    return this.q.runs.filter((r) => r.status === 'creating' || r.status === 'pending');
  }

  /** PR numbers in queue order. */
  order(): number[] {
    const byId = new Map(this.q.entries.map((e) => [e.id, e]));
    return this.q.units.flatMap((u) => u.entryIds.map((id) => byId.get(id)!.prNumber));
  }

  report(run: TestRun, state: CheckState, context = 'ci'): void {
    const current = this.q.runs.find((r) => r.id === run.id)!;
    if (!current.testBranchSha) throw new Error('run has no test branch yet');
    this.q = recordStatusChecks(this.q, current.testBranchSha, [{ context, state, url: null }], this.now);
    this.settle();
  }

  /** Test results uploaded for the run's test branch head: the tests that failed there. */
  testResults(run: TestRun, failedTests: FailedTest[]): void {
    const current = this.q.runs.find((r) => r.id === run.id)!;
    if (!current.testBranchSha) throw new Error('run has no test branch yet');
    this.q = recordTestResults(this.q, current.testBranchSha, failedTests, this.now);
    this.settle();
  }

  advanceSeconds(seconds: number): void {
    this.now = new Date(this.now.getTime() + seconds * 1000);
    this.settle();
  }

  pass(prNumber: number): void {
    this.report(this.runOf(prNumber), 'success');
  }

  fail(prNumber: number): void {
    this.report(this.runOf(prNumber), 'failure');
  }

  advance(minutes: number): void {
    this.now = minutesAfter(this.now, minutes);
    this.settle();
  }

  cancel(prNumber: number): void {
    this.q = cancelEntry(this.q, this.entry(prNumber).id, reason('cancelled_by_user', 'cancelled by a user'), this.now);
    this.settle();
  }

  restart(prNumber: number): void {
    this.q = restartEntry(this.q, this.entry(prNumber).id, this.now);
    this.settle();
  }

  setState(state: SettableQueueState): void {
    this.q = changeSettings(this.q, {}, state, this.now);
    this.settle();
  }

  update(patch: Partial<QueueSettings>): void {
    this.q = changeSettings(this.q, patch, undefined, this.now);
    this.settle();
  }

  /** Impacted targets were set for the PR's current head (the submitted ones stay its targets). */
  targetsKnown(prNumber: number): void {
    const e = this.entry(prNumber);
    if (!this.targets.has(e.id)) this.targets.set(e.id, this.interner.toTargetSet({ all: false, targets: [] }));
    this.q = recordImpactedTargets(this.q, prNumber, e.prSha);
    this.settle();
  }

  pullRequest(info: PullRequestInfo | null, prNumber?: number): void {
    this.q = recordPullRequest(this.q, info, this.now, null, prNumber);
    this.settle();
  }

  /** The engine loop: plan and apply, then carry out the document's side effects, until quiet. */
  settle(maxRounds = 200): void {
    for (let round = 0; round < maxRounds; round++) {
      const started = performance.now();
      const actions = plan({ queue: this.q, targets: this.targets }, this.now);
      this.slowestPlanMs = Math.max(this.slowestPlanMs, performance.now() - started);
      if (actions.length > 0) {
        this.plans.push(actions);
        this.q = applyActions(this.q, actions, this.now);
      }
      const effects = this.runEffects();
      if (actions.length === 0 && !effects) return;
    }
    const last = this.plans.slice(-4).map((p) => p.map((a) => JSON.stringify(a).slice(0, 300)).join('\n')).join('\n----\n');
    throw new Error(`the queue did not settle; last plans:\n${last}`);
  }

  private runEffects(): boolean {
    let did = false;
    // Merges first, strictly in queue order, stopping at a refusal.
    for (const e of this.mergesDue()) {
      did = true;
      const refusal = this.refuseMerge.get(e.prNumber);
      if (refusal) {
        this.refuseMerge.delete(e.prNumber);
        this.q = recordMergeRefused(this.q, e.id, refusal, 'refused by the git host', this.now);
        return true;
      }
      this.onMerge?.(this.q, e);
      const landedBefore = this.merges.map((m) => m.entryId);
      this.merges.push({ entryId: e.id, prNumber: e.prNumber, runId: e.mergeIntent!.runId, landedBefore });
      this.q = recordMerged(this.q, e.id, `merge-${e.prNumber}`, this.now);
    }
    for (const run of this.q.runs) {
      if (run.status === 'creating') {
        did = true;
        const conflict = run.prs.find((p) => this.conflicts.has(p.prNumber));
        this.mergesAtBuild.set(run.id, this.merges.length);
        this.q = conflict
          ? recordRunConflict(this.q, run.id, conflict.prNumber, this.now)
          : recordRunCreated(this.q, run.id, { sha: `t-${run.id}`, baseSha: this.builtOn?.(run) ?? this.q.targetSha ?? 'main-0' }, this.now);
      }
    }
    for (const run of this.q.runs) {
      if (run.status !== 'creating' && run.status !== 'pending' && !run.cleanedUp) {
        did = true;
        this.q = recordBranchDeleted(this.q, run.id);
      }
    }
    return did;
  }

  private mergesDue(): Entry[] {
    const byId = new Map(this.q.entries.map((e) => [e.id, e]));
    return this.q.units.flatMap((u) => u.entryIds.map((id) => byId.get(id)!)).filter((e) => e.mergeIntent);
  }
}

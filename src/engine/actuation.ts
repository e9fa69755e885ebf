import type { Logger } from 'pino';
import type { QueueDoc } from '../domain/queue.js';
import { testBranchName, type TestRun } from '../domain/run.js';
import type { GitHost, TestBranchSpec } from '../githost/githost.js';
import {
  failForGitHostError,
  recordBranchDeleted,
  recordRunConflict,
  recordRunCreated,
  recordStatusChecks,
  recordTargetBuiltOn,
  recordTargetHead,
  recordTestResults,
} from '../planner/index.js';
import type { Clock } from '../domain/clock.js';
import type { EarlyChecks, EarlyTestResults } from './early-checks.js';
import { mergesDue, runsToCleanUp, runsToCreate } from './effects.js';
import type { Fact } from './fact.js';
import { Merger } from './merging.js';

import type { Retrying } from './observation.js';
import type { QueueRuntime } from './queue-runtime.js';
import { describeError } from './retry.js';
import { draftPullRequestFor } from './test-branch-pr.js';
import { freeTestBranchSlot, onReusedTestBranch } from './test-branch-slots.js';
import { testBranchStart } from './test-branch-start.js';

export interface ActuatorOptions {
  gitHost: GitHost;
  clock: Clock;
  logger: Logger;
  withRetry: Retrying;
  /** Reconciles in a row in which the git host failed to build a run's test branch before its PRs fail. */
  maxCreateFailures: number;
  /** How long to wait before trying a failed side effect again. */
  effectRetryMs: number;
  /** Statuses that came before their run was recorded (webhooks are quick when CI is). */
  earlyChecks: EarlyChecks;
  /** Test results uploaded before their run was recorded (a quick CI). */
  earlyTestResults: EarlyTestResults;
  /** Test branch head -> queue, to route status reports without a search. */
  testBranchHeads: Map<string, string>;
  /** Told once per queue when branch protection refuses a fast-forward. */
  onFastForwardRefused?: (doc: QueueDoc) => void;
}

export interface EffectsOutcome {
  facts: Fact[];
  /** Something failed and should be tried again then. */
  retryAt: number | null;
}

/**
 * Actuation: carries out on the git host what a committed document asks for (test branches built and
 * deleted, merges) and returns the outcomes as facts. Every effect here is idempotent: branch names
 * come from the run id, merges are guarded by the PR head and look before they leap.
 */
export class Actuator {
  private readonly merger: Merger;

  constructor(private readonly o: ActuatorOptions) {
    const { gitHost, clock, logger, withRetry, onFastForwardRefused } = o;
    this.merger = new Merger({ gitHost, clock, logger, withRetry, ...(onFastForwardRefused ? { onFastForwardRefused } : {}) });
  }

  /**
   * Merges come first, strictly in queue order, and alone: a new test branch is only built once the
   * merges ahead of it are recorded, and a refused merge is re-planned before anything else is merged.
   * `mayAct` is asked before each effect (the lease is still ours); when it says no, nothing more is done.
   */
  async runEffects(rt: QueueRuntime, doc: QueueDoc, mayAct: () => Promise<boolean>): Promise<EffectsOutcome> {
    const { gitHost, logger, withRetry } = this.o;
    const later = () => this.o.clock.now().getTime() + this.o.effectRetryMs;
    const merges = mergesDue(doc);
    if (merges.length > 0) {
      const { facts, retry } = await this.merger.merge(doc, merges, mayAct);
      return { facts, retryAt: retry ? later() : null };
    }

    const facts: Fact[] = [];
    let failed = false;
    const creating = runsToCreate(doc);
    let required: string[] | undefined;
    if (creating.length > 0 && doc.settings.requiredStatuses === null) {
      try {
        required = await withRetry(() => gitHost.requiredStatuses(doc.repo, doc.branch));
      } catch (err) {
        logger.warn({ err, queueId: doc.id }, 'could not read the required statuses; test branches wait');
        return { facts, retryAt: later() };
      }
    }
    // Each run built is seen by the next one, which may then be built on its branch.
    let built = doc;
    for (const run of creating) {
      if (!(await mayAct())) return { facts, retryAt: null };
      const fact = await this.createTestBranch(rt, built, run, required);
      if (fact) {
        facts.push(fact);
        built = fact(built);
      } else failed = true;
    }
    for (const run of runsToCleanUp(doc)) {
      if (!(await mayAct())) return { facts, retryAt: null };
      if (onReusedTestBranch(doc, run)) {
        // Moved by the next run that takes it: nothing to delete.
        if (run.testBranchSha) this.o.testBranchHeads.delete(run.testBranchSha);
        facts.push((q) => recordBranchDeleted(q, run.id));
        continue;
      }
      try {
        await withRetry(() => gitHost.deleteBranch(doc.repo, testBranchName(doc.branch, run.id)));
        if (run.testBranchSha) this.o.testBranchHeads.delete(run.testBranchSha);
        facts.push((q) => recordBranchDeleted(q, run.id));
      } catch (err) {
        failed = true;
        logger.warn({ err, queueId: doc.id, runId: run.id }, 'could not delete a test branch');
      }
    }
    return { facts, retryAt: failed ? later() : null };
  }

  private async createTestBranch(rt: QueueRuntime, doc: QueueDoc, run: TestRun, required: string[] | undefined): Promise<Fact | null> {
    const { clock, logger } = this.o;
    // A draft PR per test branch needs a branch per run (deleting it closes the PR).
    const reuse = this.o.gitHost.reusesTestBranches === true && !doc.settings.createPrsForTestingBranches;
    const name = reuse ? freeTestBranchSlot(doc, run) : testBranchName(doc.branch, run.id);
    const startFrom = testBranchStart(doc, run);
    const spec: TestBranchSpec = {
      name,
      baseBranch: doc.branch,
      prs: run.prs.map((p) => ({ number: p.prNumber, sha: p.prSha, title: p.prTitle, ...(p.prHeadRef ? { from: p.prHeadRef } : {}) })),
      ...(reuse ? { reuse } : {}),
      ...(startFrom ? { startFrom } : {}),
      // Opened by the host once the branch exists, or found there after a crash; closed with the branch.
      ...(doc.settings.createPrsForTestingBranches ? { draftPullRequest: draftPullRequestFor(doc.branch, name, run) } : {}),
    };
    try {
      const result = await this.o.withRetry(() => this.o.gitHost.createTestBranch(doc.repo, spec));
      rt.createFailures.delete(run.id);
      if (!result.ok) return (q) => recordRunConflict(q, run.id, result.conflictPrNumber, clock.now());
      if (result.draftPullRequestError !== undefined) {
        // The run goes on without its draft PR (it is not tried again: the run is no longer `creating`).
        logger.warn({ queueId: doc.id, runId: run.id, error: result.draftPullRequestError }, 'could not open the draft pull request of a test branch');
      }
      this.o.testBranchHeads.set(result.sha, doc.id);
      const created = {
        sha: result.sha,
        baseSha: result.baseSha,
        ...(result.startSha !== undefined ? { startSha: result.startSha } : {}),
        ...(reuse ? { testBranch: name } : {}),
        ...(required ? { requiredStatuses: required } : {}),
      };
      // A host that built elsewhere than asked read the target head: that is news of where it stands.
      const observed = result.baseSha === startFrom?.baseSha ? null : result.baseSha;
      return (q) => {
        const now = clock.now();
        // A fresh build read the head now; an adopted branch says where it stood when it was built.
        const atHead = observed === null ? q : result.adopted ? recordTargetHead(q, observed, now) : recordTargetBuiltOn(q, observed, now);
        const recorded = recordRunCreated(atHead, run.id, created, now);
        // Results that came before this record was written (webhooks are quick when CI is).
        const early = this.o.earlyChecks.get(result.sha);
        const withChecks = early ? recordStatusChecks(recorded, result.sha, [...early], now) : recorded;
        const tests = this.o.earlyTestResults.get(result.sha);
        return tests ? recordTestResults(withChecks, result.sha, [...tests], now) : withChecks;
      };
    } catch (err) {
      const failures = (rt.createFailures.get(run.id) ?? 0) + 1;
      rt.createFailures.set(run.id, failures);
      logger.warn({ err, queueId: doc.id, runId: run.id, failures }, 'could not create a test branch');
      if (failures < this.o.maxCreateFailures) return null;
      const dependencies = new Set(run.dependencyEntryIds);
      const own = run.prs.map((p) => p.entryId).filter((id) => !dependencies.has(id));
      const message = `the git host failed to create the test branch: ${describeError(err)}`;
      return (q) => failForGitHostError(q, own, message, clock.now());
    }
  }
}

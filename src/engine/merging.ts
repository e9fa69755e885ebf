import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.js';
import type { Entry } from '../domain/entry.js';
import type { QueueDoc } from '../domain/queue.js';
import type { GitHost, PullRequestInfo } from '../githost/githost.js';
import {
  failForGitHostError,
  lineageIndex,
  recordFastForwardRefused,
  recordMergeRefused,
  recordMerged,
  recordNotMergeable,
  recordPullRequest,
  recordTargetRead,
} from '../planner/index.js';
import { statusContext } from './commit-status.js';
import { fastForwardPlan, type FastForwardPlan } from './fast-forward-plan.js';
import type { Fact } from './fact.js';
import type { Retrying } from './observation.js';
import { describeError } from './retry.js';

export interface MergerOptions {
  gitHost: GitHost;
  clock: Clock;
  logger: Logger;
  withRetry: Retrying;
  /** Told once per queue when branch protection refuses a fast-forward (a metric). */
  onFastForwardRefused?: (doc: QueueDoc) => void;
}

/** How long after branch protection refused a fast-forward the queue tries one again. */
export const FAST_FORWARD_RETRY_MS = 6 * 60 * 60_000;

/** What a merge step found: facts to record, and whether to stop merging for this reconcile. */
interface Step {
  facts: Fact[];
  stop: boolean;
}

/**
 * Carries out the planner's merge decisions on the git host, strictly in queue order (github.md,
 * "Merging"): a fast-forward of the target branch to the furthest passed run that holds exactly the
 * due merges, else the merge API one PR at a time, guarded by the tested head. Before either, each PR
 * must still be allowed to merge: open, head unchanged, not blocked by the branch's rules.
 */
export class Merger {
  constructor(private readonly o: MergerOptions) {}

  async merge(doc: QueueDoc, due: readonly Entry[], mayAct: () => Promise<boolean>): Promise<{ facts: Fact[]; retry: boolean }> {
    const moved = await this.targetMovedOutside(doc);
    if (moved === undefined) return { facts: [], retry: true };
    if (moved !== null) return { facts: [(q) => recordTargetRead(q, moved, this.o.clock.now())], retry: false };
    const plan = this.fastForwardAllowed(doc) ? fastForwardPlan(doc, due) : null;
    if (plan) {
      if (!(await mayAct())) return { facts: [], retry: false };
      return { facts: (await this.fastForward(doc, plan)).facts, retry: false };
    }
    const facts: Fact[] = [];
    for (let i = 0; i < due.length; ) {
      if (!(await mayAct())) break;
      // A natively stacked PR lands through the stack merge even alone (the members above it left):
      // GitHub refuses it the merge API.
      const stack = nativeStackAt(due, i);
      const native = stack.some((e) => e.stack?.kind === 'native') && this.o.gitHost.mergeStack !== undefined;
      const step = native ? await this.mergeNativeStack(doc, stack) : await this.mergeOne(doc, due[i]!);
      i += native ? stack.length : 1;
      facts.push(...step.facts);
      if (step.stop) break;
    }
    return { facts, retry: false };
  }

  private fastForwardAllowed(doc: QueueDoc): boolean {
    if (!this.o.gitHost.fastForward || doc.settings.mergeMethod !== 'merge_commit') return false;
    const refused = doc.fastForwardRefused;
    return !refused || this.o.clock.now().getTime() - Date.parse(refused.at) >= FAST_FORWARD_RETRY_MS;
  }

  /**
   * Reads the target head before merging: a run merges only onto the base it tested plus the queue's
   * own merges. The head if it moved outside the queue, null if not, undefined if it could not be read.
   */
  private async targetMovedOutside(doc: QueueDoc): Promise<string | null | undefined> {
    let head: string | null;
    try {
      head = await this.o.withRetry(() => this.o.gitHost.getBranchHead(doc.repo, doc.branch));
    } catch (err) {
      this.o.logger.warn({ err, queueId: doc.id }, 'could not read the head of the target branch before merging; merges wait');
      return undefined;
    }
    if (head === null || lineageIndex(doc, head) >= 0) return null;
    return head;
  }

  /** One write merges every PR of the plan; the target then holds exactly the tested commit. */
  private async fastForward(doc: QueueDoc, plan: FastForwardPlan): Promise<Step> {
    const { gitHost, clock, logger } = this.o;
    for (const entry of plan.entries) {
      const blocked = await this.notAllowed(doc, entry);
      if (blocked) return blocked;
    }
    for (const entry of plan.entries) {
      const retargeted = await this.retargetChainMember(doc, entry);
      if (retargeted) return retargeted;
    }
    const sha = plan.run.testBranchSha;
    const merged: Fact = (q) => {
      const now = clock.now();
      const recorded = plan.entries.reduce((d, e) => recordMerged(d, e.id, sha, now), q);
      return recordFastForwardRefused(recorded, null, now);
    };
    try {
      const result = await this.o.withRetry(() => gitHost.fastForward!(doc.repo, doc.branch, sha));
      if (result.ok) return { facts: [merged], stop: true };
      if (result.code === 'protected') {
        logger.warn({ queueId: doc.id, message: result.message }, 'branch protection refused the fast-forward: merging through the merge API (allow the App to bypass the rule to merge the tested commits)');
        this.o.onFastForwardRefused?.(doc);
        return { facts: [(q) => recordFastForwardRefused(q, result.message, clock.now())], stop: true };
      }
    } catch (err) {
      // The request may have reached GitHub before it failed: look before failing the PRs.
      const head = await gitHost.getBranchHead(doc.repo, doc.branch).catch(() => null);
      if (head === sha) return { facts: [merged], stop: true };
      return this.failed(doc, plan.entries, err);
    }
    // Not a fast-forward: the target moved since it was read. Read it again (base_moved follows).
    const head = await this.targetMovedOutside(doc);
    return { facts: head ? [(q) => recordTargetRead(q, head, clock.now())] : [], stop: true };
  }

  /** Merges one PR through the merge API, unless an earlier attempt already did (a crash before it was recorded). */
  private async mergeOne(doc: QueueDoc, entry: Entry): Promise<Step> {
    const { gitHost, clock, logger } = this.o;
    const blocked = (await this.notAllowed(doc, entry)) ?? (await this.retargetChainMember(doc, entry));
    if (blocked) return blocked;
    try {
      const result = await this.o.withRetry(() =>
        gitHost.mergePullRequest(doc.repo, entry.prNumber, { expectedSha: entry.mergeIntent!.expectedSha, method: doc.settings.mergeMethod }),
      );
      if (result.ok) return { facts: [(q) => recordMerged(q, entry.id, result.sha, clock.now())], stop: false };
      logger.info({ queueId: doc.id, pr: entry.prNumber, code: result.code }, 'the git host refused a merge');
      return { facts: [(q) => recordMergeRefused(q, entry.id, result.code, result.message, clock.now())], stop: true };
    } catch (err) {
      const after = await gitHost.getPullRequest(doc.repo, entry.prNumber).catch(() => null);
      if (after?.state === 'merged') return { facts: [(q) => recordMerged(q, entry.id, after.mergeCommitSha ?? '', clock.now())], stop: false };
      return this.failed(doc, [entry], err);
    }
  }

  /**
   * A member of a plain chain above the bottom is based on the member below it: right before it
   * lands it is retargeted to the target branch, so that the fast-forward (or its merge) marks it
   * merged there. Null when done or not needed; else what to record (the host failed).
   */
  private async retargetChainMember(doc: QueueDoc, entry: Entry): Promise<Step | null> {
    const place = entry.stack;
    if (!place || place.position < 2 || place.kind === 'native' || !this.o.gitHost.retargetPullRequest) return null;
    try {
      const pr = await this.o.withRetry(() => this.o.gitHost.getPullRequest(doc.repo, entry.prNumber));
      if (pr && pr.state === 'open' && pr.baseBranch !== doc.branch) {
        await this.o.withRetry(() => this.o.gitHost.retargetPullRequest!(doc.repo, entry.prNumber, doc.branch));
      }
      return null;
    } catch (err) {
      return this.failed(doc, [entry], err);
    }
  }

  /**
   * The members of a native stack, due together, land through the host's stack merge on the top one
   * (a natively stacked PR cannot be merged one by one), pinned to the tested head of the top.
   */
  private async mergeNativeStack(doc: QueueDoc, members: readonly Entry[]): Promise<Step> {
    const { gitHost, clock, logger } = this.o;
    for (const entry of members) {
      const blocked = await this.notAllowed(doc, entry, false);
      if (blocked) return blocked;
    }
    const top = members.at(-1)!;
    try {
      await this.passOwnStatus(doc, members);
      const result = await this.o.withRetry(() =>
        gitHost.mergeStack!(doc.repo, top.prNumber, { expectedSha: top.mergeIntent!.expectedSha, method: doc.settings.mergeMethod }),
      );
      if (result.ok) {
        return { facts: [(q) => members.reduce((d, e) => recordMerged(d, e.id, result.sha, clock.now()), q)], stop: false };
      }
      logger.info({ queueId: doc.id, pr: top.prNumber, code: result.code }, 'the git host refused to merge a stack');
      return { facts: [(q) => recordMergeRefused(q, members[0]!.id, result.code, result.message, clock.now())], stop: true };
    } catch (err) {
      return this.failed(doc, members, err);
    }
  }

  /**
   * GitHub checks the target's rules on every member when a stack merge runs, with no bypass: when
   * they require the queue's own status, it is said passed on each member first (the unit's run
   * passed), else the stack merge would fail on the queue's own pending status.
   */
  private async passOwnStatus(doc: QueueDoc, members: readonly Entry[]): Promise<void> {
    const { gitHost, withRetry } = this.o;
    const context = statusContext(doc.branch);
    if (!doc.settings.statusCheckEnabled || !(await withRetry(() => gitHost.requiredStatuses(doc.repo, doc.branch))).includes(context)) return;
    for (const e of members) {
      await withRetry(() => gitHost.reportStatus(doc.repo, e.prSha, { context, state: 'success', description: 'Passed in the merge queue: merging with its stack', targetUrl: null }));
    }
  }

  /**
   * Null when the PR may merge now; else what to record instead: merged already, closed, changed since
   * it was tested, or blocked by the branch's rules (asked only of a host that can say what blocks it:
   * the App may be able to bypass protection, and must never use that to merge what the rules block).
   * `asChain`: the entry is about to land by a fast-forward or the merge API.
   */
  private async notAllowed(doc: QueueDoc, entry: Entry, asChain = true): Promise<Step | null> {
    const { gitHost, clock } = this.o;
    let pr: PullRequestInfo | null;
    try {
      pr = await this.o.withRetry(() => gitHost.getPullRequest(doc.repo, entry.prNumber));
    } catch (err) {
      return this.failed(doc, [entry], err);
    }
    if (pr?.state === 'merged') {
      const sha = pr.mergeCommitSha ?? '';
      return { facts: [(q) => recordMerged(q, entry.id, sha, clock.now())], stop: false };
    }
    // A chain member the host has stacked natively since (its `stacked` event missed) cannot land by a
    // fast-forward or the merge API: recorded as native, the unit lands through the stack merge next.
    const nowNative = asChain && pr?.state === 'open' && pr.nativeStack !== undefined && entry.stack !== undefined && entry.stack.kind !== 'native';
    if (!pr || pr.state !== 'open' || pr.headSha !== entry.mergeIntent!.expectedSha || nowNative) {
      const info = pr;
      return { facts: [(q) => recordPullRequest(q, info, clock.now(), null, entry.prNumber)], stop: true };
    }
    if (pr.mergeability !== 'NOT_MERGEABLE' || !gitHost.mergeBlockers) return null;
    const why = await this.o.withRetry(() => gitHost.mergeBlockers!(doc.repo, entry.prNumber)).catch(() => 'the branch rules block it');
    this.o.logger.info({ queueId: doc.id, pr: entry.prNumber, why }, 'a pull request may no longer merge: it leaves the queue');
    return { facts: [(q) => recordNotMergeable(q, entry.id, why, clock.now())], stop: true };
  }

  /** The git host failed to merge these PRs, after every retry: they fail (`github_error`). */
  private failed(doc: QueueDoc, entries: readonly Entry[], err: unknown): Step {
    this.o.logger.error({ err, queueId: doc.id, prs: entries.map((e) => e.prNumber) }, 'the git host failed to merge');
    const message = `the git host failed to merge: ${describeError(err)}`;
    return { facts: [(q) => failForGitHostError(q, entries.map((e) => e.id), message, this.o.clock.now())], stop: true };
  }
}

/** The due entries from `i` on that belong to the native stack of `due[i]` (just it when it is in none). */
function nativeStackAt(due: readonly Entry[], i: number): Entry[] {
  const first = due[i]!;
  if (!first.stack) return [first];
  const out = [first];
  while (due[i + out.length]?.stack?.id === first.stack.id) out.push(due[i + out.length]!);
  // A chain the host stacked natively since: any member known native makes the unit one.
  return out.some((e) => e.stack?.kind === 'native') ? out : [first];
}

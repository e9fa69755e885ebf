import { createHash } from 'node:crypto';
import type { Mergeability } from '../../domain/entry.js';
import type { RepoRef } from '../../domain/repo.js';
import type { MergeMethod } from '../../domain/settings.js';

/** A PR's change at one head commit. */
export interface Change {
  prNumber: number;
  headSha: string;
}

/**
 * A branch of the target kind: the PR changes merged on top of the initial commit. Its sha chains the
 * hashes of those changes, so equal content gives an equal sha. `merged` is the set of PRs it holds.
 */
export interface Branch {
  sha: string;
  /** Every head it had, oldest first (what a commit based on it contains). */
  history: string[];
  merged: Set<number>;
  /** It holds a bad PR or both sides of a logical conflict: every run on top of it fails. */
  broken: boolean;
}

/** A test branch: a base commit plus PR changes in order. */
export interface TestBranch {
  sha: string;
  baseSha: string;
  changes: Change[];
  /** The spec it was built from, to answer a repeated create idempotently. */
  specKey: string;
}

export interface SandboxPullRequest {
  number: number;
  title: string;
  author: string;
  baseBranch: string;
  /** The PR's head branch (a PR of a chain above it is based on it). */
  headBranch: string;
  headSha: string;
  /** How many commits were pushed (the head sha derives from it). */
  revision: number;
  /** How much of the base branch's history the head contains (it was based on the base as it was then). */
  baseHistoryLength: number;
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  /** Any CI run containing a bad PR fails. */
  bad: boolean;
  /** Fixed CI duration for runs containing this PR (the longest wins), else the CI's distribution. */
  ciMinutes: number | null;
  mergeCommitSha: string | null;
  mergedAt: string | null;
}

/**
 * A draft PR mergeq opened from a test branch (`createPrsForTestingBranches`): kept apart from the
 * PRs people open, but numbered with them, as on GitHub. Closed when its head branch is deleted.
 */
export interface SandboxTestBranchPull {
  number: number;
  title: string;
  body: string;
  /** The test branch. */
  head: string;
  base: string;
  draft: true;
  state: 'open' | 'closed';
}

export function sha1(...parts: string[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex');
}

/** One in-memory repository: branches, pull requests and which PR pairs conflict. */
export class SandboxRepository {
  readonly branches = new Map<string, Branch>();
  readonly testBranches = new Map<string, TestBranch>();
  readonly pulls = new Map<number, SandboxPullRequest>();
  /** Draft PRs opened from test branches, by number. */
  readonly testBranchPulls = new Map<number, SandboxTestBranchPull>();
  private nextNumber = 1;
  /** Pairs that cannot both be applied. */
  private readonly textualPartners = new Map<number, Set<number>>();
  /** Pairs that apply cleanly but break the build together. */
  private readonly logicalPartners = new Map<number, Set<number>>();

  constructor(
    readonly ref: RepoRef,
    defaultBranch: string,
  ) {
    this.ensureBranch(defaultBranch);
  }

  ensureBranch(name: string): Branch {
    let branch = this.branches.get(name);
    if (!branch) {
      const sha = sha1('initial', this.ref.host, this.ref.owner, this.ref.name, name);
      branch = { sha, history: [sha], merged: new Set(), broken: false };
      this.branches.set(name, branch);
    }
    return branch;
  }

  openPull(input: {
    title?: string;
    author?: string;
    baseBranch: string;
    headBranch?: string;
    bad?: boolean;
    ciMinutes?: number | null;
    draft?: boolean;
  }): SandboxPullRequest {
    const base = this.ensureBranch(input.baseBranch);
    const number = this.nextNumber++;
    const pr: SandboxPullRequest = {
      number,
      title: input.title ?? `Change ${number}`,
      author: input.author ?? 'sandbox-user',
      baseBranch: input.baseBranch,
      headBranch: input.headBranch ?? `change-${number}`,
      revision: 1,
      headSha: this.headShaOf(number, 1),
      baseHistoryLength: base.history.length,
      state: 'open',
      draft: input.draft ?? false,
      bad: input.bad ?? false,
      ciMinutes: input.ciMinutes ?? null,
      mergeCommitSha: null,
      mergedAt: null,
    };
    this.pulls.set(number, pr);
    return pr;
  }

  /** Opens a draft PR from the test branch `head`, or answers the open one already there for it. */
  openTestBranchPull(input: { head: string; base: string; title: string; body: string }): SandboxTestBranchPull {
    for (const pull of this.testBranchPulls.values()) if (pull.head === input.head && pull.state === 'open') return pull;
    const pull: SandboxTestBranchPull = { number: this.nextNumber++, ...input, draft: true, state: 'open' };
    this.testBranchPulls.set(pull.number, pull);
    return pull;
  }

  /** Closes the open PRs from `head` (its branch was deleted). */
  closeTestBranchPulls(head: string): void {
    for (const pull of this.testBranchPulls.values()) if (pull.head === head) pull.state = 'closed';
  }

  /** A new head, based on the base branch as it is now (as after "update branch"). */
  pushCommit(pr: SandboxPullRequest): void {
    pr.revision += 1;
    pr.headSha = this.headShaOf(pr.number, pr.revision);
    pr.baseHistoryLength = this.ensureBranch(pr.baseBranch).history.length;
  }

  /** Whether a PR head contains `ancestorSha`: a head of its base branch it was based on. */
  headContains(headSha: string, ancestorSha: string): boolean {
    for (const pr of this.pulls.values()) {
      if (pr.headSha !== headSha) continue;
      const index = this.branches.get(pr.baseBranch)?.history.indexOf(ancestorSha) ?? -1;
      return index >= 0 && index < pr.baseHistoryLength;
    }
    return false;
  }

  addConflict(kind: 'textual' | 'logical', a: number, b: number): void {
    const partners = kind === 'textual' ? this.textualPartners : this.logicalPartners;
    for (const [x, y] of [[a, b], [b, a]] as const) {
      let set = partners.get(x);
      if (!set) partners.set(x, (set = new Set()));
      set.add(y);
    }
  }

  /** The PR (already in `base` or among `before`) that textually conflicts with `prNumber`, if any. */
  textualConflict(base: Branch, before: readonly Change[], prNumber: number): number | null {
    const partners = this.textualPartners.get(prNumber);
    if (!partners) return null;
    for (const other of partners) if (base.merged.has(other)) return other;
    for (const c of before) if (partners.has(c.prNumber)) return c.prNumber;
    return null;
  }

  /** Whether `base` plus `changes` holds a bad PR or both sides of a logical conflict. */
  isBroken(base: Branch, changes: readonly Change[]): boolean {
    return this.brokenTests(base, changes).length > 0;
  }

  /** The tests these changes on this base break: a bad PR's own, a logical conflict's, a broken base's. */
  brokenTests(base: Branch, changes: readonly Change[]): string[] {
    const broken: string[] = [];
    if (base.broken) broken.push("the target branch's own tests");
    const present = new Set<number>();
    for (const c of changes) {
      if (this.pulls.get(c.prNumber)?.bad) broken.push(`test of #${c.prNumber}`);
      for (const other of this.logicalPartners.get(c.prNumber) ?? []) {
        if (present.has(other) || base.merged.has(other)) broken.push(`#${other} with #${c.prNumber}`);
      }
      present.add(c.prNumber);
    }
    return broken;
  }

  mergeability(pr: SandboxPullRequest): Mergeability {
    const base = this.branches.get(pr.baseBranch);
    if (!base) return 'NOT_MERGEABLE';
    return this.textualConflict(base, [], pr.number) === null ? 'MERGEABLE' : 'NOT_MERGEABLE';
  }

  /** Applies the PR on top of its base branch; the method changes the resulting sha only. */
  merge(pr: SandboxPullRequest, method: MergeMethod, at: string): Branch {
    const base = this.ensureBranch(pr.baseBranch);
    const broken = this.isBroken(base, [{ prNumber: pr.number, headSha: pr.headSha }]);
    base.sha = sha1('merge', method, base.sha, pr.headSha);
    base.history.push(base.sha);
    base.merged.add(pr.number);
    base.broken = broken;
    pr.state = 'merged';
    pr.mergeCommitSha = base.sha;
    pr.mergedAt = at;
    return base;
  }

  private headShaOf(number: number, revision: number): string {
    return sha1('head', this.ref.host, this.ref.owner, this.ref.name, String(number), String(revision));
  }
}

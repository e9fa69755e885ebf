import type { PullRequestInfo } from '../domain/pull-request.js';
import type { RepoRef } from '../domain/repo.js';
import type { StatusCheck } from '../domain/run.js';
import type { MergeMethod } from '../domain/settings.js';
import type { PullRequestStack } from '../domain/stack.js';

export type { PullRequestInfo } from '../domain/pull-request.js';

/** Why PRs stay NOT_READY when no git host is configured (shown in `readiness.note`). */
export const NO_GIT_HOST_NOTE = 'no git host is configured';

/**
 * `startSha`: the commit the build started from (the target head, or an earlier run's commit), so the
 * queue knows which commits a test branch head descends from. `draftPullRequestError`: the branch was
 * created but its draft PR could not be opened (only when one was asked for). `adopted`: the branch was
 * there already (built before a crash) and is answered with the base it was built on, not one read now. The run goes on without it: the PR is a convenience, never a reason to fail a run.
 */
export type CreateBranchResult =
  | { ok: true; sha: string; baseSha: string; startSha?: string; draftPullRequestError?: string; adopted?: true }
  | { ok: false; conflictPrNumber: number };

/** What `createTestBranch` builds. */
export interface TestBranchSpec {
  name: string;
  baseBranch: string;
  /** Merged in this order; `title` goes into the merge commit's message. */
  /** `from`: `owner/branch` of the PR's head, named in the merge commit as GitHub does. */
  prs: { number: number; sha: string; title?: string; from?: string }[];
  /**
   * `name` is one of the queue's reused test branches (`reusesTestBranches`): it may hold an earlier
   * run's commit, which is never adopted; the new commit is published by moving it.
   */
  reuse?: boolean;
  /**
   * A commit that holds `baseSha` plus the first `prCount` of `prs`: the target head as the queue
   * knows it (`prCount` 0), or the test branch of a run this one extends. A host may start there and
   * merge only the rest, answering `baseSha` as the base; or ignore it, build from the head of
   * `baseBranch` as it reads it, and answer that head.
   */
  startFrom?: { sha: string; baseSha: string; prCount: number };
  /** Also open a draft PR from the test branch into `baseBranch` (`createPrsForTestingBranches`). */
  draftPullRequest?: DraftPullRequestSpec;
}

export interface DraftPullRequestSpec {
  title: string;
  body: string;
}

/** How a fast-forward of the target branch went: `protected`, branch protection refused the App. */
export type FastForwardResult = { ok: true } | { ok: false; code: 'not_fast_forward' | 'protected'; message: string };

export type MergeResult =
  | { ok: true; sha: string }
  | { ok: false; code: 'merge_conflict' | 'pr_updated'; message: string };

export interface CommitStatusReport {
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  targetUrl: string | null;
}

/**
 * The git host port: everything the engine asks of GitHub (or the sandbox). Every method is
 * idempotent or guarded (branch names derive from run ids; merges are guarded by the head SHA).
 */
export interface GitHost {
  readonly kind: 'github' | 'sandbox' | 'none';
  /** null when the PR does not exist. */
  getPullRequest(repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null>;
  getBranchHead(repo: RepoRef, branch: string): Promise<string | null>;
  /** The checks branch protection requires on `branch`. */
  requiredStatuses(repo: RepoRef, branch: string): Promise<string[]>;
  /**
   * Builds `name` from the head of `baseBranch` (or from `startFrom`) by merging each PR head in
   * order, and answers the base it built on. A branch that already exists is answered as built only
   * when the host knows its base; otherwise it is rebuilt.
   *
   * With `draftPullRequest`, once the branch exists the host also opens a draft PR from it into
   * `baseBranch`, or finds the open one already there for that head (a create repeated after a crash
   * opens no second PR). That step fails softly: its error comes back as `draftPullRequestError` on
   * an `ok` result, not as a throw, since the branch is built and the run can go on without the PR.
   * Nothing is opened when the branch cannot be built (a conflict).
   */
  createTestBranch(repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult>;
  /**
   * Deleting a missing branch is not an error. A draft PR opened from a test branch is closed with
   * it (GitHub closes a PR whose head branch is deleted).
   */
  deleteBranch(repo: RepoRef, name: string): Promise<void>;
  readStatuses(repo: RepoRef, sha: string): Promise<StatusCheck[]>;
  mergePullRequest(
    repo: RepoRef,
    prNumber: number,
    opts: { expectedSha: string; method: MergeMethod },
  ): Promise<MergeResult>;
  reportStatus(repo: RepoRef, sha: string, report: CommitStatusReport): Promise<void>;
  /**
   * Moves `branch` forward to `sha` (never backwards or sideways): every PR whose head `sha` holds is
   * merged by it. Optional: without it, PRs are merged one by one with `mergePullRequest`.
   */
  fastForward?(repo: RepoRef, branch: string, sha: string): Promise<FastForwardResult>;
  /** Test branches are a fixed set per queue, moved for each run and never deleted (`TestBranchSpec.reuse`). */
  readonly reusesTestBranches?: boolean;
  /**
   * What keeps an open PR from merging by the branch's rules (missing or dismissed approvals,
   * changes requested), in a few words; asked when the host reports a PR not mergeable.
   */
  mergeBlockers?(repo: RepoRef, prNumber: number): Promise<string>;
  /**
   * Whether commit `headSha` contains commit `ancestorSha` (a PR head is up to date with that target
   * head), for directMergeMode. Optional: without it, no PR is merged directly.
   */
  headContains?(repo: RepoRef, headSha: string, ancestorSha: string): Promise<boolean>;
  /**
   * Creates a comment on the pull request, or edits the one already there whose body starts with
   * `comment.marker` (an HTML comment such as `<!-- mergeq:main -->`, one per queue): the PR's status
   * comment, kept as one comment edited in place. `comment.body` starts with the marker. Optional:
   * without it, no comment is posted (`commentsEnabled`).
   */
  upsertPullRequestComment?(repo: RepoRef, prNumber: number, comment: PullRequestComment): Promise<void>;
  /** The open pull requests whose head is commit `sha` (whose checks just reported: auto-enqueue). Optional. */
  openPullRequestsAt?(repo: RepoRef, sha: string): Promise<number[]>;
  /**
   * The stack `prNumber` belongs to: a native stack (GitHub's `stack` object and Stacks API), or a
   * plain chain of base branches (its base is the head branch of another open PR, and so on down to
   * a branch that is no open PR's head: the target). Null when it stands alone. Optional: without
   * it, no PR is taken as stacked.
   */
  getStack?(repo: RepoRef, prNumber: number): Promise<PullRequestStack | null>;
  /**
   * Changes the base branch of an open pull request: a chain member is retargeted to the stack's
   * target right before the fast-forward that lands it, so that the one ref update marks it merged.
   */
  retargetPullRequest?(repo: RepoRef, prNumber: number, baseBranch: string): Promise<void>;
  /**
   * The open PRs based on `branch` outside the host's native stacks: the chain members above the PR
   * whose head `branch` is. Once that PR merged alone, they are retargeted onto where it landed.
   */
  openPullRequestsBasedOn?(repo: RepoRef, branch: string): Promise<number[]>;
  /** The merged PR whose head is `branch`, and the branch it merged into; null when none merged. */
  mergedPullRequestOfBranch?(repo: RepoRef, branch: string): Promise<{ number: number; baseBranch: string } | null>;
  /**
   * Native stacks: merges every member from the bottom up to `topPrNumber` at once through the
   * stack merge (`PUT …/pulls/{n}/merge-async`, `merge_action: direct_merge`, `sha` = `expectedSha`),
   * polling until it ends: `merged` is ok with the target's new head, `failed` is a refusal with the
   * host's message. A natively stacked PR cannot be merged one by one.
   */
  mergeStack?(repo: RepoRef, topPrNumber: number, opts: { expectedSha: string; method: MergeMethod }): Promise<MergeResult>;
}

/** A comment that mergeq keeps up to date on a pull request: found again by its marker. */
export interface PullRequestComment {
  marker: string;
  body: string;
}

/** What the `none` host says, as an error's message or a readiness note. */
export const NO_GIT_HOST = 'no git host is configured';

/** Thrown by the `none` host: no git host is configured. */
export class NoGitHostError extends Error {
  constructor() {
    super(NO_GIT_HOST);
    this.name = 'NoGitHostError';
  }
}

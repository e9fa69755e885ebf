import type { RepoRef } from '../../domain/repo.js';
import { repoKey } from '../../domain/repo.js';
import type { StatusCheck } from '../../domain/run.js';
import type { PullRequestStack } from '../../domain/stack.js';
import { chainOf } from './chains.js';
import type { MergeMethod } from '../../domain/settings.js';
import type { Clock } from '../../domain/clock.js';
import type { Scheduler } from '../../domain/scheduler.js';
import type {
  CommitStatusReport,
  CreateBranchResult,
  GitHost,
  MergeResult,
  PullRequestComment,
  PullRequestInfo,
  TestBranchSpec,
} from '../githost.js';
import { ScriptedCi, type CiOptions, type StatusListener, type TestResultsListener } from './ci.js';
import { Random } from './random.js';
import { sha1, SandboxRepository, type Change, type SandboxPullRequest, type SandboxTestBranchPull } from './repository.js';

export interface SandboxOptions {
  clock: Clock;
  scheduler: Scheduler;
  /** Seed of the CI's flakes and durations. */
  seed?: number;
  ci?: Partial<CiOptions>;
  /** The branch a new repository starts with. */
  defaultBranch?: string;
}

export interface OpenPullRequestInput {
  title?: string;
  author?: string;
  baseBranch?: string;
  /** The PR's head branch (default `change-<number>`); a PR based on it stacks on this one. */
  headBranch?: string;
  bad?: boolean;
  ciMinutes?: number | null;
  draft?: boolean;
}

export type GitHostMethod = Exclude<keyof GitHost, 'kind'>;
/** Where a failure can be injected: a method of the port, or the draft PR step of createTestBranch. */
export type SandboxFailurePoint = GitHostMethod | 'openDraftPullRequest';

/** A comment kept up to date on a sandbox PR; `edits` counts the times it was edited after it was created. */
export interface SandboxComment {
  marker: string;
  body: string;
  edits: number;
}

import { SandboxNotFoundError, SandboxOutageError, SandboxStateError } from './sandbox-errors.js';

export { SandboxNotFoundError, SandboxOutageError, SandboxStateError };

/** A quick CI by default, so that a PR opened by hand in a demo merges within a couple of minutes. */
export const DEFAULT_CI: CiOptions = {
  contexts: ['ci'],
  duration: { kind: 'fixed', minutes: 1 },
  flakeRate: 0,
  tests: null,
  hold: false,
  failureTiming: 'end',
};

/**
 * An in-memory git host: repositories, pull requests, test branches and a scripted CI. For demos,
 * end-to-end tests and the simulator (`MERGEQ_GITHOST=sandbox`).
 */
export class SandboxGitHost implements GitHost {
  readonly kind = 'sandbox' as const;
  readonly ci: ScriptedCi;
  private readonly repos = new Map<string, SandboxRepository>();
  private readonly mergeCounts = new Map<string, number>();
  private readonly mergeLog = new Map<string, number[]>();
  private readonly reports = new Map<string, CommitStatusReport[]>();
  /** `repo#pr` -> marker -> the comment carrying it. */
  private readonly comments = new Map<string, Map<string, SandboxComment>>();
  private readonly injected: { method: SandboxFailurePoint; remaining: number; error: () => Error }[] = [];
  private readonly defaultBranch: string;
  readonly stats = { testBranchesCreated: 0, testBranchesDeleted: 0, branchConflicts: 0, merges: 0, mergeRefusals: 0, mergeCallsOnMergedPrs: 0 };

  constructor(private readonly options: SandboxOptions) {
    this.defaultBranch = options.defaultBranch ?? 'main';
    this.ci = new ScriptedCi({ ...DEFAULT_CI, ...options.ci }, options.clock, options.scheduler, new Random(options.seed ?? 1));
  }

  // ---- Sandbox controls (tests, the simulator and the /sandbox routes) ----

  repository(repo: RepoRef): SandboxRepository {
    const key = repoKey(repo);
    let r = this.repos.get(key);
    if (!r) {
      r = new SandboxRepository({ ...repo }, this.defaultBranch);
      this.repos.set(key, r);
    }
    return r;
  }

  repositories(): SandboxRepository[] {
    return [...this.repos.values()];
  }

  openPullRequest(repo: RepoRef, input: OpenPullRequestInput = {}): SandboxPullRequest {
    return { ...this.repository(repo).openPull({ ...input, baseBranch: input.baseBranch ?? this.defaultBranch }) };
  }

  pullRequest(repo: RepoRef, prNumber: number): SandboxPullRequest | null {
    const pr = this.repos.get(repoKey(repo))?.pulls.get(prNumber);
    return pr ? { ...pr } : null;
  }

  listPullRequests(repo: RepoRef): SandboxPullRequest[] {
    return [...(this.repos.get(repoKey(repo))?.pulls.values() ?? [])].map((pr) => ({ ...pr }));
  }

  /** Pushes a new commit to an open PR: its head sha changes. */
  pushCommit(repo: RepoRef, prNumber: number): SandboxPullRequest {
    const pr = this.openPull(repo, prNumber);
    this.repository(repo).pushCommit(pr);
    return { ...pr };
  }

  closePullRequest(repo: RepoRef, prNumber: number): SandboxPullRequest {
    const pr = this.openPull(repo, prNumber);
    pr.state = 'closed';
    return { ...pr };
  }

  update(repo: RepoRef, prNumber: number, patch: Partial<Pick<SandboxPullRequest, 'bad' | 'draft' | 'baseBranch' | 'ciMinutes' | 'title'>>): SandboxPullRequest {
    const pr = this.mustFind(repo, prNumber);
    Object.assign(pr, patch);
    if (patch.baseBranch) this.repository(repo).ensureBranch(patch.baseBranch);
    return { ...pr };
  }

  /** Textual: the two cannot be applied together. Logical: they apply, but a run holding both fails. */
  addConflict(repo: RepoRef, kind: 'textual' | 'logical', a: number, b: number): void {
    this.repository(repo).addConflict(kind, a, b);
  }

  onStatus(listener: StatusListener): () => void {
    return this.ci.onStatus(listener);
  }

  /** Test results of each CI run, with the test model on (`ci.tests`). */
  onTestResults(listener: TestResultsListener): () => void {
    return this.ci.onTestResults(listener);
  }

  /** Successful merges of that PR (more than one would be a bug of the queue). */
  mergeCount(repo: RepoRef, prNumber: number): number {
    return this.mergeCounts.get(`${repoKey(repo)}#${prNumber}`) ?? 0;
  }

  /** PR numbers in the order they were merged (every branch of the repository). */
  mergedInOrder(repo: RepoRef): number[] {
    return [...(this.mergeLog.get(repoKey(repo)) ?? [])];
  }

  liveTestBranches(repo: RepoRef): string[] {
    return [...(this.repos.get(repoKey(repo))?.testBranches.keys() ?? [])];
  }

  /** The draft PRs opened from test branches (`createPrsForTestingBranches`), open and closed, oldest first. */
  testBranchPullRequests(repo: RepoRef): SandboxTestBranchPull[] {
    return [...(this.repos.get(repoKey(repo))?.testBranchPulls.values() ?? [])].map((p) => ({ ...p }));
  }

  /** The commit statuses reported on `sha`, oldest first. */
  reportedStatuses(repo: RepoRef, sha: string): CommitStatusReport[] {
    return [...(this.reports.get(`${repoKey(repo)}#${sha}`) ?? [])];
  }

  /** The comments mergeq keeps on a PR (one per marker), oldest first. */
  pullRequestComments(repo: RepoRef, prNumber: number): SandboxComment[] {
    return [...(this.comments.get(`${repoKey(repo)}#${prNumber}`)?.values() ?? [])].map((c) => ({ ...c }));
  }

  /** Sets the statuses of any commit (e.g. the checks of a PR head, which the scripted CI does not run). */
  setStatuses(repo: RepoRef, sha: string, checks: StatusCheck[]): void {
    this.ci.setStatuses(repo, sha, checks);
  }

  /**
   * The next `times` calls of `method` throw (a transient outage unless another error is given).
   * `openDraftPullRequest` fails the draft PR step of createTestBranch, which answers it as
   * `draftPullRequestError`.
   */
  failNext(method: SandboxFailurePoint, times = 1, error?: () => Error): void {
    this.injected.push({ method, remaining: times, error: error ?? (() => new SandboxOutageError(method)) });
  }

  clearInjectedFailures(): void {
    this.injected.length = 0;
  }

  // ---- GitHost ----

  async getPullRequest(repo: RepoRef, prNumber: number): Promise<PullRequestInfo | null> {
    this.maybeFail('getPullRequest');
    const r = this.repos.get(repoKey(repo));
    const pr = r?.pulls.get(prNumber);
    if (!r || !pr) return null;
    return {
      number: pr.number,
      title: pr.title,
      headSha: pr.headSha,
      baseBranch: pr.baseBranch,
      author: pr.author,
      state: pr.state,
      draft: pr.draft,
      mergeability: pr.state === 'open' ? r.mergeability(pr) : 'UNSPECIFIED',
      mergeCommitSha: pr.mergeCommitSha,
    };
  }

  async getBranchHead(repo: RepoRef, branch: string): Promise<string | null> {
    this.maybeFail('getBranchHead');
    const r = this.repos.get(repoKey(repo));
    return r?.branches.get(branch)?.sha ?? r?.testBranches.get(branch)?.sha ?? null;
  }

  async requiredStatuses(_repo: RepoRef, _branch: string): Promise<string[]> {
    this.maybeFail('requiredStatuses');
    return [...this.ci.options.contexts];
  }

  /** The draft PR, when asked for, is opened once the branch exists (or found open: see the port). */
  async createTestBranch(repo: RepoRef, spec: TestBranchSpec): Promise<CreateBranchResult> {
    this.maybeFail('createTestBranch');
    const result = this.buildTestBranch(repo, spec);
    const draft = spec.draftPullRequest;
    if (!result.ok || !draft) return result;
    try {
      this.maybeFail('openDraftPullRequest');
      this.repository(repo).openTestBranchPull({ head: spec.name, base: spec.baseBranch, ...draft });
      return result;
    } catch (error) {
      return { ...result, draftPullRequestError: error instanceof Error ? error.message : String(error) };
    }
  }

  private buildTestBranch(repo: RepoRef, spec: TestBranchSpec): CreateBranchResult {
    const r = this.repository(repo);
    const base = r.branches.get(spec.baseBranch);
    if (!base) throw new SandboxNotFoundError(`branch ${spec.baseBranch} does not exist`);
    const specKey = JSON.stringify([spec.baseBranch, spec.prs]);
    const existing = r.testBranches.get(spec.name);
    if (existing && existing.specKey === specKey) return { ok: true, sha: existing.sha, baseSha: existing.baseSha, adopted: true };

    const changes: Change[] = [];
    for (const p of spec.prs) {
      if (!r.pulls.has(p.number)) throw new SandboxNotFoundError(`pull request #${p.number} does not exist`);
      if (base.merged.has(p.number)) continue; // already on the base: merging it again changes nothing
      if (r.textualConflict(base, changes, p.number) !== null) {
        this.stats.branchConflicts++;
        return { ok: false, conflictPrNumber: p.number };
      }
      changes.push({ prNumber: p.number, headSha: p.sha });
    }
    // A test branch is a fresh merge commit: its sha is unique to the branch even for equal content,
    // as on a real host, so a rerun of identical content never sees its predecessor's statuses.
    const sha = sha1('test', spec.name, base.sha, ...changes.map((c) => c.headSha));
    if (existing) this.ci.abort(repo, existing.sha);
    r.testBranches.set(spec.name, { sha, baseSha: base.sha, changes, specKey });
    this.stats.testBranchesCreated++;
    const fixed = changes.map((c) => r.pulls.get(c.prNumber)?.ciMinutes ?? null).filter((m): m is number => m !== null);
    this.ci.start({
      repo: r.ref,
      branch: spec.name,
      sha,
      prNumbers: changes.map((c) => c.prNumber),
      broken: r.isBroken(base, changes),
      brokenTests: r.brokenTests(base, changes),
      fixedMinutes: fixed.length > 0 ? Math.max(...fixed) : null,
    });
    return { ok: true, sha, baseSha: base.sha };
  }

  async deleteBranch(repo: RepoRef, name: string): Promise<void> {
    this.maybeFail('deleteBranch');
    const r = this.repos.get(repoKey(repo));
    const test = r?.testBranches.get(name);
    if (r && test) {
      this.ci.abort(repo, test.sha);
      r.testBranches.delete(name);
      this.stats.testBranchesDeleted++;
    }
    // As on GitHub: a PR whose head branch is deleted is closed.
    r?.closeTestBranchPulls(name);
  }

  async readStatuses(repo: RepoRef, sha: string): Promise<StatusCheck[]> {
    this.maybeFail('readStatuses');
    return this.ci.readStatuses(repo, sha);
  }

  async mergePullRequest(repo: RepoRef, prNumber: number, opts: { expectedSha: string; method: MergeMethod }): Promise<MergeResult> {
    this.maybeFail('mergePullRequest');
    const r = this.repository(repo);
    const pr = this.mustFind(repo, prNumber);
    const refuse = (code: 'merge_conflict' | 'pr_updated', message: string): MergeResult => {
      this.stats.mergeRefusals++;
      return { ok: false, code, message };
    };
    if (pr.state === 'merged') {
      this.stats.mergeCallsOnMergedPrs++;
      return refuse('merge_conflict', `pull request #${prNumber} is already merged`);
    }
    if (pr.state === 'closed') return refuse('merge_conflict', `pull request #${prNumber} is closed`);
    if (pr.headSha !== opts.expectedSha) {
      return refuse('pr_updated', `head of pull request #${prNumber} is ${pr.headSha.slice(0, 7)}, not the tested ${opts.expectedSha.slice(0, 7)}`);
    }
    const base = r.ensureBranch(pr.baseBranch);
    const conflict = r.textualConflict(base, [], prNumber);
    if (conflict !== null) return refuse('merge_conflict', `pull request #${prNumber} conflicts with #${conflict} on ${pr.baseBranch}`);
    const merged = r.merge(pr, opts.method, this.options.clock.now().toISOString());
    const key = `${repoKey(repo)}#${prNumber}`;
    this.mergeCounts.set(key, (this.mergeCounts.get(key) ?? 0) + 1);
    this.mergeLog.set(repoKey(repo), [...(this.mergeLog.get(repoKey(repo)) ?? []), prNumber]);
    this.stats.merges++;
    return { ok: true, sha: merged.sha };
  }

  async reportStatus(repo: RepoRef, sha: string, report: CommitStatusReport): Promise<void> {
    this.maybeFail('reportStatus');
    const key = `${repoKey(repo)}#${sha}`;
    this.reports.set(key, [...(this.reports.get(key) ?? []), { ...report }]);
  }

  async upsertPullRequestComment(repo: RepoRef, prNumber: number, comment: PullRequestComment): Promise<void> {
    this.maybeFail('upsertPullRequestComment');
    this.mustFind(repo, prNumber);
    const key = `${repoKey(repo)}#${prNumber}`;
    let byMarker = this.comments.get(key);
    if (!byMarker) this.comments.set(key, (byMarker = new Map()));
    const existing = byMarker.get(comment.marker);
    if (existing) {
      existing.body = comment.body;
      existing.edits++;
    } else {
      byMarker.set(comment.marker, { marker: comment.marker, body: comment.body, edits: 0 });
    }
  }

  async headContains(repo: RepoRef, headSha: string, ancestorSha: string): Promise<boolean> {
    this.maybeFail('headContains');
    return this.repos.get(repoKey(repo))?.headContains(headSha, ancestorSha) ?? false;
  }

  async getStack(repo: RepoRef, prNumber: number): Promise<PullRequestStack | null> {
    this.maybeFail('getStack');
    return chainOf(this.repos.get(repoKey(repo))?.pulls.values() ?? [], prNumber);
  }

  async retargetPullRequest(repo: RepoRef, prNumber: number, baseBranch: string): Promise<void> {
    this.maybeFail('retargetPullRequest');
    const pr = this.openPull(repo, prNumber);
    this.repository(repo).ensureBranch(baseBranch);
    pr.baseBranch = baseBranch;
  }

  private mustFind(repo: RepoRef, prNumber: number): SandboxPullRequest {
    const pr = this.repos.get(repoKey(repo))?.pulls.get(prNumber);
    if (!pr) throw new SandboxNotFoundError(`pull request #${prNumber} does not exist`);
    return pr;
  }

  private openPull(repo: RepoRef, prNumber: number): SandboxPullRequest {
    const pr = this.mustFind(repo, prNumber);
    if (pr.state !== 'open') throw new SandboxStateError(`pull request #${prNumber} is ${pr.state}`);
    return pr;
  }

  private maybeFail(method: SandboxFailurePoint): void {
    const i = this.injected.findIndex((f) => f.method === method && f.remaining > 0);
    if (i < 0) return;
    const failure = this.injected[i]!;
    failure.remaining--;
    if (failure.remaining === 0) this.injected.splice(i, 1);
    throw failure.error();
  }
}

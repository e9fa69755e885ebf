import { FakeCommits } from './fake-commits.js';
import { FakeFiles } from './fake-github-files.js';
import { branchDeleted, listPulls, retarget, type ChainWorld } from './fake-github-chains.js';
import { ContentLimits } from './fake-github-limits.js';
import { pullJson } from './fake-github-pulls.js';
import { FakeChecks } from './fake-github-checks.js';
import { HeldRequests } from './fake-github-holds.js';
import { FakeStacks, STACK_MERGE_REFUSAL, type StackWorld } from './fake-github-stacks.js';
import { commentsPage, writeKind, type FakeComment, type FakePull, type FakeStatus, type FakeTestBranchPull, type Reply, type WriteKind } from './fake-github-types.js';

export type { FakeComment, FakeStatus, FakeTestBranchPull, Reply, WriteKind } from './fake-github-types.js';

/** A webhook GitHub would deliver, kept until a test delivers it (`takeWebhooks`). */
export interface FakeWebhook {
  name: string;
  payload: Record<string, unknown>;
}

export const API = 'https://api.github.com';

/** An answer to give instead of handling requests that match (`times` of them). */
interface InjectedFailure {
  method: string;
  path: RegExp;
  status: number;
  times: number;
  retryAfterSeconds?: number;
  /** Carried out before the failure is answered. */
  applied?: boolean;
}

/** How mergeq's status comment starts (one per queue branch); command replies never do. */
const STATUS_MARKER = '<!-- mergeq:';

/**
 * A stateful GitHub for one repository (served through nock in the tests, over HTTP by bench:github): refs, commits, pull requests, merges,
 * statuses, comments (created, listed a page at a time, edited), reactions and pull requests opened
 * from branches (closed when the branch is deleted) — the part of the REST API mergeq uses. A commit is modelled by
 * the set of PRs whose changes it holds, so merges and "is it contained" are real set operations;
 * two PRs declared conflicting cannot land in one commit (409 on the merges API, 405 on a PR merge).
 * Everything mergeq does to it is recorded for the tests to assert.
 */
export class FakeGitHub {
  readonly owner = 'acme';
  readonly name = 'widgets';
  readonly installationId = 7;
  readonly requiredContexts = ['ci'];
  readonly refs = new Map<string, string>();
  /** Files by commit (fake-github-files.ts). */
  readonly files = new FakeFiles(this.refs);
  readonly pulls = new Map<number, FakePull>();
  readonly permissions = new Map<string, string>();
  /** Statuses posted on commits (CI's and mergeq's own), by commit. */
  readonly statuses = new Map<string, FakeStatus[]>();
  /** Comments on PRs, in the order they were created: mergeq's status comments and its replies to commands. */
  readonly comments: FakeComment[] = [];
  readonly reactions: { commentId: number; content: string }[] = [];
  /** Check runs mergeq created, and whether it may. */
  readonly checks = new FakeChecks(() => ++this.seq);
  /** Requests held in flight (`held.hold`), which the servers await before handling them. */
  readonly held = new HeldRequests();
  /** PR numbers in the order they merged (the merge API, or their head reaching `main` by a fast-forward). */
  readonly merged: number[] = [];
  /** PR numbers merged by a push of the target branch (a fast-forward), not by the merge API. */
  readonly mergedByPush: number[] = [];
  /** Branches whose protection refuses the App's ref updates (no ruleset bypass): 422 "Protected branch update failed". */
  readonly protectedBranches = new Set<string>();
  /** GitHub's content limits, when turned on with `limitWrites`. */
  limits: ContentLimits | null = null;
  /**
   * PRs opened through the API (mergeq's draft PRs from test branches), numbered from 1000 so they
   * never meet the ones a test opens; closed when their head branch is deleted, as on GitHub.
   */
  readonly createdPulls: FakeTestBranchPull[] = [];
  /** Writes mergeq made, by kind (failed ones included: GitHub counts them too). */
  readonly writes: Record<WriteKind, number> = { merges: 0, refs: 0, statuses: 0, comments: 0, reactions: 0, pulls: 0 };
  /** Every request below the repository, in order, with the time it came (`now`). */
  readonly requests: { method: string; path: string; at: number }[] = [];
  /** The fake's clock (a test's virtual time). */
  now: () => number = Date.now;
  /** Called before each request below the repository is handled (to change the world at that moment). */
  onRequest: ((method: string, path: string) => void) | null = null;
  /** Called when a branch is created or moved through the API (CI starts on such a push). */
  onBranchPushed: ((branch: string, sha: string) => void) | null = null;
  private seq = 0;
  private readonly commits = new FakeCommits(() => ++this.seq);
  private readonly failures: InjectedFailure[] = [];
  /** `pull_request` webhooks for what GitHub does on its own (stacks, retargets, closes), oldest first. */
  private readonly outbox: FakeWebhook[] = [];
  private readonly world: StackWorld & ChainWorld = {
    pulls: this.pulls,
    refs: this.refs,
    statuses: this.statuses,
    mergeCommits: (base, head) => this.commits.merge(base, head),
    landStack: (branch, sha, members) => {
      for (const p of members) {
        Object.assign(p, { state: 'closed', merged: true, mergeCommitSha: sha });
        this.merged.push(p.number);
      }
      this.moveBranch(branch, sha);
    },
    emit: (action, pull, extra = {}) =>
      this.outbox.push({ name: 'pull_request', payload: { action, number: pull.number, pull_request: this.pullResource(pull), repository: { ...this.repository, default_branch: this.files.defaultBranch }, ...extra } }),
    headRefOf: (pull) => pull.headRef ?? `feature-${pull.number}`,
    pullResource: (pull) => this.pullResource(pull),
  };
  /** GitHub's native stacks (fake-github-stacks.ts). */
  readonly stacks = new FakeStacks(this.world);

  constructor() {
    this.refs.set('main', 'base0');
  }

  get repository(): { name: string; full_name: string; owner: { login: string } } {
    return { name: this.name, full_name: `${this.owner}/${this.name}`, owner: { login: this.owner } };
  }

  openPull(number: number, author = 'dev'): FakePull {
    const head = `head${number}`;
    this.commits.add(head, [number], this.refs.get('main')!);
    const pull: FakePull = { number, title: `change ${number}`, author, head, base: 'main', state: 'open', merged: false, mergeCommitSha: null, draft: false, awaitsReview: false, reviews: [], labels: [] };
    this.pulls.set(number, pull);
    return pull;
  }

  /**
   * A plain chain: PR `numbers[0]` based on `base`, each next one based on the head branch of the one
   * before, its head a commit on top of it (holding the changes below too). Each head branch exists.
   */
  openChain(numbers: number[], base = 'main'): FakePull[] {
    let below: FakePull | null = null;
    return numbers.map((number) => {
      const pull = this.openPull(number);
      if (below) {
        this.commits.add(pull.head, [...this.commits.contentOf(below.head), number], below.head);
        pull.base = this.world.headRefOf(below);
      } else pull.base = base;
      this.refs.set(this.world.headRefOf(pull), pull.head);
      below = pull;
      return pull;
    });
  }

  /** A native stack of PRs opened as a chain (`openChain`), created as `POST …/stacks` does. */
  openStack(numbers: number[], base = 'main'): FakePull[] {
    const pulls = this.openChain(numbers, base);
    const [status, body] = this.stacks.create(numbers);
    if (status !== 201) throw new Error(`no stack: ${JSON.stringify(body)}`);
    return pulls;
  }

  /** A PR as the REST API and webhooks carry it, with its `stack`. */
  pullResource(pull: FakePull): Record<string, unknown> {
    return { ...pullJson(pull), stack: this.stacks.stackField(pull.number) };
  }

  /** The webhooks GitHub would have sent since the last call, oldest first. */
  takeWebhooks(): FakeWebhook[] {
    return this.outbox.splice(0);
  }

  conflict(a: number, b: number): void {
    this.commits.conflict(a, b);
  }

  /** A commit with no change of its own on top of `parent` (`POST /git/commits`, fake-github-app.ts). */
  addCommit(sha: string, parent: string): void {
    this.commits.add(sha, [], parent);
  }
  hasCommit = (sha: string): boolean => this.commits.has(sha);

  /**
   * Someone pushes a change straight to `branch` (not through a PR mergeq knows): its content is the
   * change number `change`. Returns the new head.
   */
  pushOutside(change: number, branch = 'main'): string {
    this.commits.add(`outside${change}`, [change], this.refs.get(branch)!);
    const head = this.commits.merge(this.refs.get(branch)!, `outside${change}`);
    if (head === null) throw new Error(`change ${change} conflicts with ${branch}`);
    this.moveBranch(branch, head);
    return head;
  }

  /** New commits pushed to PR `number`: its head becomes `sha`. */
  pushToPull(number: number, sha: string): void {
    const pull = this.pulls.get(number)!;
    this.commits.add(sha, [...new Set([...this.commits.contentOf(pull.head), number])], pull.head);
    pull.head = sha;
    const branch = this.world.headRefOf(pull);
    if (this.refs.has(branch)) this.refs.set(branch, sha);
  }

  /** Someone with write access approves PR `number`: branch protection no longer blocks it. */
  approve(number: number, user = 'reviewer'): void {
    const pull = this.pulls.get(number)!;
    pull.reviews.push({ user, state: 'APPROVED' });
    pull.awaitsReview = false;
  }

  /** An approval is dismissed (a push, or an admin): branch protection blocks the PR again. */
  dismissApproval(number: number): void {
    const pull = this.pulls.get(number)!;
    pull.reviews = pull.reviews.map((r) => (r.state === 'APPROVED' ? { ...r, state: 'DISMISSED' } : r));
    pull.awaitsReview = true;
  }

  /**
   * Turns on GitHub's secondary limits on content-creating requests for this installation: over
   * `perMinute` in any minute or `perHour` in any hour (`hourMs` long when the limits are scaled
   * down; `now` says the time), a write is refused with 403 and `retry-after`, and does not happen.
   */
  limitWrites(perMinute: number, perHour: number, now: () => number = Date.now, hourMs?: number): ContentLimits {
    this.limits = new ContentLimits(perMinute, perHour, now, hourMs);
    return this.limits;
  }

  /**
   * The next `times` requests `method path` (path below the repository, a RegExp) answer `status`; a
   * 403 with `retryAfterSeconds` is a secondary rate limit, as GitHub words it.
   */
  failNext(method: string, path: RegExp, status: number, times = 1, retryAfterSeconds?: number): void {
    this.failures.push({ method, path, status, times, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  }

  /** The next request `method path` is carried out, but answered `status` (the answer lost on the way back). */
  failAfter(method: string, path: RegExp, status: number): void {
    this.failures.push({ method, path, status, times: 1, applied: true });
  }

  /** A commit status on `sha` (CI's, or mergeq's own through the API), replacing one of the same context. */
  setStatus(sha: string, status: FakeStatus): void {
    const list = this.statuses.get(sha) ?? [];
    this.statuses.set(sha, [...list.filter((s) => s.context !== status.context), status]);
  }

  /** All writes so far. */
  totalWrites(): number {
    return Object.values(this.writes).reduce((a, b) => a + b, 0);
  }

  /** The PRs a commit (or a branch's head) holds. */
  contentOf(shaOrBranch: string): number[] {
    const sha = this.refs.get(shaOrBranch) ?? shaOrBranch;
    return this.commits.contentOf(sha);
  }

  /** mergeq's replies to comment commands, oldest first (its status comments left out). */
  replies(): { issue: number; body: string }[] {
    return this.comments.filter((c) => !c.body.startsWith(STATUS_MARKER)).map(({ issue, body }) => ({ issue, body }));
  }

  /** mergeq's status comments on a PR (one per queue branch when all is well). */
  statusComments(issue: number): FakeComment[] {
    return this.comments.filter((c) => c.issue === issue && c.body.startsWith(STATUS_MARKER));
  }

  /** Branches whose name starts with `prefix`. */
  branches(prefix: string): string[] {
    return [...this.refs.keys()].filter((b) => b.startsWith(prefix));
  }

  /** Answers one API request: `uri` is the path below the API root, with its query. */
  handle(method: string, uri: string, body: Record<string, unknown>): Reply {
    const path = uri.split('?')[0]!;
    if (method === 'POST' && /^\/app\/installations\/\d+\/access_tokens$/.test(path)) {
      return [201, { token: 'installation-token', expires_at: '2099-01-01T00:00:00Z', permissions: {} }];
    }
    const prefix = `/repos/${this.owner}/${this.name}`;
    if (!path.startsWith(prefix)) return notFound();
    const route = `${method} ${path.slice(prefix.length)}`;
    this.onRequest?.(method, path.slice(prefix.length));
    this.requests.push({ method, path: path.slice(prefix.length), at: this.now() });
    const kind = writeKind(method, path.slice(prefix.length));
    if (kind) {
      const refusal = this.limits?.refuse();
      if (refusal) return refusal;
      this.writes[kind]++;
    }
    const failure = this.failures.find((f) => f.times > 0 && f.method === method && f.path.test(path.slice(prefix.length)));
    if (failure?.applied) {
      failure.times--;
      this.handleRoute(method, uri, route, body);
      return [failure.status, { message: 'Server Error' }];
    }
    if (failure) {
      failure.times--;
      if (failure.retryAfterSeconds !== undefined) {
        return [failure.status, { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, { 'retry-after': String(failure.retryAfterSeconds) }];
      }
      return [failure.status, { message: failure.status === 429 ? 'API rate limit exceeded' : 'Server Error' }, failure.status === 429 ? { 'retry-after': '1' } : {}];
    }
    return this.handleRoute(method, uri, route, body);
  }

  /** Carries out one request of the repository (`route`: `METHOD /path` below it). */
  private handleRoute(method: string, uri: string, route: string, body: Record<string, unknown>): Reply {
    let m: RegExpExecArray | null;
    if (route === 'GET /installation') return [200, { id: this.installationId }];
    const file = this.files.route(route, uri);
    if (file) return file;
    if ((m = /^GET \/collaborators\/([^/]+)\/permission$/.exec(route))) {
      const permission = this.permissions.get(m[1]!) ?? 'read';
      return [200, { permission: permission === 'maintain' ? 'write' : permission, role_name: permission }];
    }
    const stacked = this.stacks.route(route, uri, body);
    if (stacked) return stacked;
    if (route === 'GET /pulls') return listPulls(this.world, uri, `${API}/repos/${this.owner}/${this.name}`);
    if ((m = /^PATCH \/pulls\/(\d+)$/.exec(route))) return retarget(this.world, Number(m[1]), body);
    if ((m = /^GET \/pulls\/(\d+)$/.exec(route))) return this.getPull(Number(m[1]));
    if ((m = /^GET \/pulls\/(\d+)\/reviews$/.exec(route))) {
      const p = this.pulls.get(Number(m[1]));
      return p ? [200, p.reviews.map((r, i) => ({ id: i + 1, user: { login: r.user }, state: r.state }))] : notFound();
    }
    if ((m = /^PUT \/pulls\/(\d+)\/merge$/.exec(route))) return this.mergePull(Number(m[1]), body);
    if ((m = /^GET \/git\/ref\/heads\/(.+)$/.exec(route))) {
      const sha = this.refs.get(m[1]!);
      return sha ? [200, { ref: `refs/heads/${m[1]}`, object: { sha, type: 'commit' } }] : notFound();
    }
    if (route === 'POST /git/refs') return this.createRef(String(body.ref), String(body.sha));
    if ((m = /^GET \/git\/commits\/([^/]+)$/.exec(route))) {
      const commit = this.commits.describe(m[1]!);
      return commit ? [200, commit] : notFound();
    }
    if ((m = /^PATCH \/git\/refs\/heads\/(.+)$/.exec(route))) return this.updateRef(m[1]!, String(body.sha), body.force === true);
    if ((m = /^DELETE \/git\/refs\/heads\/(.+)$/.exec(route))) {
      if (!this.refs.delete(m[1]!)) return [422, { message: 'Reference does not exist' }];
      for (const pull of this.createdPulls) if (pull.head === m[1]) pull.state = 'closed';
      branchDeleted(this.world, m[1]!);
      return [204];
    }
    if (route === 'POST /pulls') return this.createPull(body);
    if (route === 'POST /merges') return this.mergeInto(String(body.base), String(body.head), String(body.commit_message ?? ''));
    if ((m = /^GET \/branches\/(.+)\/protection\/required_status_checks$/.exec(route))) {
      return m[1] === 'main' ? [200, { strict: false, contexts: this.requiredContexts, checks: [] }] : notFound();
    }
    if (/^GET \/rules\/branches\/.+$/.test(route)) return [200, []];
    if ((m = /^GET \/commits\/([^/]+)\/status$/.exec(route))) {
      const statuses = this.statuses.get(m[1]!) ?? [];
      return [200, { state: 'pending', sha: m[1], statuses, total_count: statuses.length }];
    }
    if ((m = /^GET \/commits\/([^/]+)\/pulls$/.exec(route))) return [200, [...this.pulls.values()].filter((p) => p.head === m![1]).map((p) => this.pullResource(p))];
    if (/^GET \/commits\/[^/]+\/check-runs$/.test(route)) return [200, { total_count: 0, check_runs: [] }];
    const check = this.checks.route(route, body);
    if (check) return check;
    if ((m = /^POST \/statuses\/([^/]+)$/.exec(route))) {
      const status = { context: String(body.context), state: String(body.state), target_url: (body.target_url as string | undefined) ?? null, description: String(body.description ?? '') };
      this.setStatus(m[1]!, status);
      return [201, { id: ++this.seq, ...status }];
    }
    if ((m = /^GET \/compare\/([^.]+)\.\.\.(.+)$/.exec(route))) {
      if (m[1] === m[2]) return [200, { status: 'identical' }];
      const base = this.contentOf(m[1]!);
      const head = new Set(this.contentOf(m[2]!));
      return [200, { status: base.every((n) => head.has(n)) ? 'ahead' : 'diverged' }];
    }
    if ((m = /^POST \/issues\/comments\/(\d+)\/reactions$/.exec(route))) {
      this.reactions.push({ commentId: Number(m[1]), content: String(body.content) });
      return [201, { id: ++this.seq, content: body.content }];
    }
    if ((m = /^POST \/issues\/(\d+)\/comments$/.exec(route))) {
      const comment = { id: ++this.seq, issue: Number(m[1]), body: String(body.body), edits: 0 };
      this.comments.push(comment);
      return [201, { id: comment.id, body: comment.body }];
    }
    if ((m = /^GET \/issues\/(\d+)\/comments$/.exec(route))) return commentsPage(this.comments, Number(m[1]), uri, `${API}/repos/${this.owner}/${this.name}`);
    if ((m = /^PATCH \/issues\/comments\/(\d+)$/.exec(route))) {
      const comment = this.comments.find((c) => c.id === Number(m![1]));
      if (!comment) return notFound();
      comment.body = String(body.body);
      comment.edits++;
      return [200, { id: comment.id, body: comment.body }];
    }
    return [501, { message: `the fake GitHub does not serve ${route}` }];
  }

  private getPull(number: number): Reply {
    const p = this.pulls.get(number);
    return p ? [200, this.pullResource(p)] : notFound();
  }

  private mergePull(number: number, body: Record<string, unknown>): Reply {
    const p = this.pulls.get(number);
    if (!p) return notFound();
    if (p.state !== 'open') return [405, { message: 'Pull Request is not mergeable' }];
    if (this.stacks.stackOf(number)) return [405, { message: STACK_MERGE_REFUSAL }];
    if (body.sha !== p.head) return [409, { message: 'Head branch was modified. Review and try the merge again.' }];
    if (p.awaitsReview) return [405, { message: 'At least 1 approving review is required by reviewers with write access.' }];
    const merged = this.commits.merge(this.refs.get(p.base)!, p.head);
    if (merged === null) return [405, { message: 'Merge conflict' }];
    this.refs.set(p.base, merged);
    Object.assign(p, { state: 'closed', merged: true, mergeCommitSha: merged });
    this.merged.push(number);
    this.world.emit('closed', p);
    this.markMergedByPush(p.base, merged);
    return [200, { sha: merged, merged: true, message: 'Pull Request successfully merged' }];
  }

  /** POST /pulls: GitHub's 422s for a head that is not a branch and for a second open PR from one head. */
  private createPull(body: Record<string, unknown>): Reply {
    const head = String(body.head);
    if (!this.refs.has(head)) return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field: 'head', code: 'invalid' }] }];
    if (this.createdPulls.some((p) => p.head === head && p.state === 'open')) {
      return [422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${this.owner}:${head}.` }] }];
    }
    const pull: FakeTestBranchPull = {
      number: 1000 + this.createdPulls.length,
      title: String(body.title),
      body: String(body.body ?? ''),
      head,
      base: String(body.base),
      draft: body.draft === true,
      state: 'open',
    };
    this.createdPulls.push(pull);
    return [201, { number: pull.number, title: pull.title, draft: pull.draft, state: pull.state, head: { ref: head }, base: { ref: pull.base } }];
  }

  private createRef(ref: string, sha: string): Reply {
    const branch = ref.replace(/^refs\/heads\//, '');
    if (this.refs.has(branch)) return [422, { message: 'Reference already exists' }];
    if (!this.commits.has(sha)) return [422, { message: 'Object does not exist' }];
    this.refs.set(branch, sha);
    this.onBranchPushed?.(branch, sha);
    return [201, { ref, object: { sha, type: 'commit' } }];
  }

  /** PATCH …/git/refs/heads/<branch>: without `force`, only a fast-forward (the head must be an ancestor of `sha`). */
  private updateRef(branch: string, sha: string, force: boolean): Reply {
    const head = this.refs.get(branch);
    if (head === undefined) return [422, { message: 'Reference does not exist' }];
    if (!this.commits.has(sha)) return [422, { message: 'Object does not exist' }];
    if (this.protectedBranches.has(branch)) return [422, { message: `Protected branch update failed for refs/heads/${branch}.` }];
    if (!force && !this.isAncestor(head, sha)) return [422, { message: 'Update is not a fast forward' }];
    this.moveBranch(branch, sha);
    if (head !== sha) this.onBranchPushed?.(branch, sha);
    return [200, { ref: `refs/heads/${branch}`, object: { sha, type: 'commit' } }];
  }

  /** Moves a branch; a PR into it whose head it now holds is merged, as GitHub marks such PRs. */
  private moveBranch(branch: string, sha: string): void {
    this.refs.set(branch, sha);
    this.markMergedByPush(branch, sha);
  }

  private markMergedByPush(branch: string, sha: string): void {
    for (const p of [...this.pulls.values()].sort((a, b) => a.number - b.number)) {
      if (p.state !== 'open' || p.base !== branch || !this.isAncestor(p.head, sha)) continue;
      Object.assign(p, { state: 'closed', merged: true, mergeCommitSha: sha });
      this.merged.push(p.number);
      this.mergedByPush.push(p.number);
      this.world.emit('closed', p);
    }
  }

  /** Whether `ancestor` is `sha` or reachable from it through parents. */
  isAncestor(ancestor: string, sha: string): boolean {
    return this.commits.isAncestor(ancestor, sha);
  }

  private mergeInto(base: string, head: string, message: string): Reply {
    const baseSha = this.refs.get(base);
    if (!baseSha || !this.commits.has(head)) return notFound();
    if (this.commits.contains(baseSha, head)) return [204];
    const merged = this.commits.merge(baseSha, head, message);
    if (merged === null) return [409, { message: 'Merge conflict' }];
    this.moveBranch(base, merged);
    return [201, { sha: merged, parents: [{ sha: baseSha }, { sha: head }] }];
  }
}

function notFound(): Reply {
  return [404, { message: 'Not Found' }];
}

export const API = 'https://api.github.com';

/** A PR as the fake keeps it; `head` is the commit of its head. */
interface FakePull {
  number: number;
  title: string;
  author: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  merged: boolean;
  mergeCommitSha: string | null;
  draft: boolean;
  /** Branch protection wants a review it does not have yet (`mergeable_state: blocked`). */
  awaitsReview: boolean;
}

/** A draft PR mergeq opened from a test branch (createPrsForTestingBranches); `head` is the branch. */
export interface FakeTestBranchPull {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
}

export interface FakeStatus {
  context: string;
  state: string;
  target_url: string | null;
  description: string;
}

/** A comment on a PR; `edits` counts the times its body was replaced. */
export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  edits: number;
}

/** Status, JSON body, headers. */
export type Reply = [number, unknown?, Record<string, string>?];

/** What kind of write a request is, for counting GitHub writes per merged PR. */
export type WriteKind = 'merges' | 'refs' | 'statuses' | 'comments' | 'reactions' | 'pulls';

/** An answer to give instead of handling requests that match (`times` of them). */
interface InjectedFailure {
  method: string;
  path: RegExp;
  status: number;
  times: number;
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
  readonly pulls = new Map<number, FakePull>();
  readonly permissions = new Map<string, string>();
  /** Statuses posted on commits (CI's and mergeq's own), by commit. */
  readonly statuses = new Map<string, FakeStatus[]>();
  /** Comments on PRs, in the order they were created: mergeq's status comments and its replies to commands. */
  readonly comments: FakeComment[] = [];
  readonly reactions: { commentId: number; content: string }[] = [];
  /** PR numbers in the order the merge API merged them. */
  readonly merged: number[] = [];
  /**
   * PRs opened through the API (mergeq's draft PRs from test branches), numbered from 1000 so they
   * never meet the ones a test opens; closed when their head branch is deleted, as on GitHub.
   */
  readonly createdPulls: FakeTestBranchPull[] = [];
  /** Writes mergeq made, by kind (failed ones included: GitHub counts them too). */
  readonly writes: Record<WriteKind, number> = { merges: 0, refs: 0, statuses: 0, comments: 0, reactions: 0, pulls: 0 };
  /** Called when a branch is created through the API (CI starts on such a push). */
  onBranchCreated: ((branch: string, sha: string) => void) | null = null;
  private readonly commits = new Map<string, Set<number>>([['base0', new Set()]]);
  private readonly messages = new Map<string, string>();
  private readonly failures: InjectedFailure[] = [];
  private readonly conflicts: [number, number][] = [];
  private seq = 0;

  constructor() {
    this.refs.set('main', 'base0');
  }

  get repository(): { name: string; full_name: string; owner: { login: string } } {
    return { name: this.name, full_name: `${this.owner}/${this.name}`, owner: { login: this.owner } };
  }

  openPull(number: number, author = 'dev'): FakePull {
    const head = `head${number}`;
    this.commits.set(head, new Set([number]));
    const pull: FakePull = { number, title: `change ${number}`, author, head, base: 'main', state: 'open', merged: false, mergeCommitSha: null, draft: false, awaitsReview: false };
    this.pulls.set(number, pull);
    return pull;
  }

  conflict(a: number, b: number): void {
    this.conflicts.push([a, b]);
  }

  /**
   * Someone pushes a change straight to `branch` (not through a PR mergeq knows): its content is the
   * change number `change`. Returns the new head.
   */
  pushOutside(change: number, branch = 'main'): string {
    this.commits.set(`outside${change}`, new Set([change]));
    const head = this.combine(this.refs.get(branch)!, `outside${change}`);
    if (head === null) throw new Error(`change ${change} conflicts with ${branch}`);
    this.refs.set(branch, head);
    return head;
  }

  /** New commits pushed to PR `number`: its head becomes `sha`. */
  pushToPull(number: number, sha: string): void {
    const pull = this.pulls.get(number)!;
    this.commits.set(sha, new Set([number]));
    pull.head = sha;
  }

  /** The next `times` requests `method path` (path below the repository, a RegExp) answer `status`. */
  failNext(method: string, path: RegExp, status: number, times = 1): void {
    this.failures.push({ method, path, status, times });
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
    return [...(this.commits.get(sha) ?? [])].sort((a, b) => a - b);
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
    const kind = writeKind(method, path.slice(prefix.length));
    if (kind) this.writes[kind]++;
    const failure = this.failures.find((f) => f.times > 0 && f.method === method && f.path.test(path.slice(prefix.length)));
    if (failure) {
      failure.times--;
      return [failure.status, { message: failure.status === 429 ? 'API rate limit exceeded' : 'Server Error' }, failure.status === 429 ? { 'retry-after': '1' } : {}];
    }
    let m: RegExpExecArray | null;
    if (route === 'GET /installation') return [200, { id: this.installationId }];
    if ((m = /^GET \/collaborators\/([^/]+)\/permission$/.exec(route))) {
      const permission = this.permissions.get(m[1]!) ?? 'read';
      return [200, { permission: permission === 'maintain' ? 'write' : permission, role_name: permission }];
    }
    if ((m = /^GET \/pulls\/(\d+)$/.exec(route))) return this.getPull(Number(m[1]));
    if ((m = /^PUT \/pulls\/(\d+)\/merge$/.exec(route))) return this.mergePull(Number(m[1]), body);
    if ((m = /^GET \/git\/ref\/heads\/(.+)$/.exec(route))) {
      const sha = this.refs.get(m[1]!);
      return sha ? [200, { ref: `refs/heads/${m[1]}`, object: { sha, type: 'commit' } }] : notFound();
    }
    if (route === 'POST /git/refs') return this.createRef(String(body.ref), String(body.sha));
    if ((m = /^GET \/git\/commits\/([^/]+)$/.exec(route))) {
      return this.commits.has(m[1]!) ? [200, { sha: m[1], message: this.messages.get(m[1]!) ?? '' }] : notFound();
    }
    if ((m = /^PATCH \/git\/refs\/heads\/(.+)$/.exec(route))) {
      if (!this.refs.has(m[1]!)) return [422, { message: 'Reference does not exist' }];
      if (!this.commits.has(String(body.sha))) return [422, { message: 'Object does not exist' }];
      this.refs.set(m[1]!, String(body.sha));
      return [200, { ref: `refs/heads/${m[1]}`, object: { sha: body.sha } }];
    }
    if ((m = /^DELETE \/git\/refs\/heads\/(.+)$/.exec(route))) {
      if (!this.refs.delete(m[1]!)) return [422, { message: 'Reference does not exist' }];
      for (const pull of this.createdPulls) if (pull.head === m[1]) pull.state = 'closed';
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
    if (/^GET \/commits\/[^/]+\/check-runs$/.test(route)) return [200, { total_count: 0, check_runs: [] }];
    if ((m = /^POST \/statuses\/([^/]+)$/.exec(route))) {
      const status = { context: String(body.context), state: String(body.state), target_url: (body.target_url as string | undefined) ?? null, description: String(body.description ?? '') };
      this.setStatus(m[1]!, status);
      return [201, { id: ++this.seq, ...status }];
    }
    if ((m = /^GET \/compare\/([^.]+)\.\.\.(.+)$/.exec(route))) {
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
    if ((m = /^GET \/issues\/(\d+)\/comments$/.exec(route))) return this.listComments(Number(m[1]), uri);
    if ((m = /^PATCH \/issues\/comments\/(\d+)$/.exec(route))) {
      const comment = this.comments.find((c) => c.id === Number(m![1]));
      if (!comment) return notFound();
      comment.body = String(body.body);
      comment.edits++;
      return [200, { id: comment.id, body: comment.body }];
    }
    return [501, { message: `the fake GitHub does not serve ${method} ${path}` }];
  }

  /** A page of an issue's comments, oldest first, with GitHub's `link` header to the next page. */
  private listComments(issue: number, uri: string): Reply {
    const query = new URLSearchParams(uri.split('?')[1] ?? '');
    const perPage = Number(query.get('per_page') ?? 30);
    const page = Number(query.get('page') ?? 1);
    const all = this.comments.filter((c) => c.issue === issue);
    const data = all.slice((page - 1) * perPage, page * perPage).map((c) => ({ id: c.id, body: c.body, user: { login: 'mergeq[bot]', type: 'Bot' } }));
    if (page * perPage >= all.length) return [200, data];
    const next = `${API}/repos/${this.owner}/${this.name}/issues/${issue}/comments?per_page=${perPage}&page=${page + 1}`;
    return [200, data, { link: `<${next}>; rel="next"` }];
  }

  private getPull(number: number): Reply {
    const p = this.pulls.get(number);
    if (!p) return notFound();
    return [
      200,
      {
        number: p.number,
        title: p.title,
        state: p.state,
        merged: p.merged,
        merge_commit_sha: p.mergeCommitSha,
        draft: p.draft,
        mergeable: p.state === 'open' ? true : null,
        mergeable_state: p.state !== 'open' ? 'unknown' : p.awaitsReview ? 'blocked' : 'clean',
        head: { sha: p.head, ref: `feature-${p.number}` },
        base: { ref: p.base },
        user: { login: p.author },
      },
    ];
  }

  private mergePull(number: number, body: Record<string, unknown>): Reply {
    const p = this.pulls.get(number);
    if (!p) return notFound();
    if (p.state !== 'open') return [405, { message: 'Pull Request is not mergeable' }];
    if (body.sha !== p.head) return [409, { message: 'Head branch was modified. Review and try the merge again.' }];
    const merged = this.combine(this.refs.get(p.base)!, p.head);
    if (merged === null) return [405, { message: 'Merge conflict' }];
    this.refs.set(p.base, merged);
    Object.assign(p, { state: 'closed', merged: true, mergeCommitSha: merged });
    this.merged.push(number);
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
    this.onBranchCreated?.(branch, sha);
    return [201, { ref, object: { sha, type: 'commit' } }];
  }

  private mergeInto(base: string, head: string, message: string): Reply {
    const baseSha = this.refs.get(base);
    if (!baseSha || !this.commits.has(head)) return notFound();
    const have = this.commits.get(baseSha)!;
    if ([...this.commits.get(head)!].every((n) => have.has(n))) return [204];
    const merged = this.combine(baseSha, head);
    if (merged === null) return [409, { message: 'Merge conflict' }];
    this.messages.set(merged, message);
    this.refs.set(base, merged);
    return [201, { sha: merged }];
  }

  /** A new commit holding both; null when two PRs in it conflict. */
  private combine(a: string, b: string): string | null {
    const content = new Set([...this.commits.get(a)!, ...this.commits.get(b)!]);
    if (this.conflicts.some(([x, y]) => content.has(x) && content.has(y))) return null;
    const sha = `c${++this.seq}`;
    this.commits.set(sha, content);
    return sha;
  }
}

function writeKind(method: string, route: string): WriteKind | null {
  if (method === 'GET' || method === 'HEAD') return null;
  if (route === '/merges' || /^\/pulls\/\d+\/merge$/.test(route)) return 'merges';
  if (route.startsWith('/git/refs')) return 'refs';
  if (route.startsWith('/statuses/')) return 'statuses';
  if (/\/reactions$/.test(route)) return 'reactions';
  if (route.startsWith('/issues/')) return 'comments';
  if (route === '/pulls') return 'pulls';
  return null;
}

function notFound(): Reply {
  return [404, { message: 'Not Found' }];
}

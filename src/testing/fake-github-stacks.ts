import type { FakePull, FakeStatus, Reply } from './fake-github-types.js';

/** A native stack: its PRs bottom (position 1) to top; `base` is the branch the whole stack lands on. */
export interface FakeStack {
  id: number;
  number: number;
  base: string;
  prs: number[];
}

/** GitHub's answer about an asynchronous merge (`PUT …/merge-async`, `GET …/merge-async/{uuid}`). */
export type MergeAsyncResult =
  | { status: 'pending'; details: { uuid: string; message: string; merge_method: string; merge_action: string; expected_head_sha: string } }
  | { status: 'merged'; details: { message: string; sha: string } }
  | { status: 'enqueued'; details: { message: string } }
  | { status: 'failed'; details: { message: string } };

/** One `PUT …/pulls/{n}/merge-async`: run when it has been polled `pollsBeforeRun` times. */
export interface FakeMergeRequest {
  uuid: string;
  pr: number;
  sha: string;
  method: string;
  action: string;
  polls: number;
  result: MergeAsyncResult | null;
}

/** What the stacks need of the rest of the fake GitHub. */
export interface StackWorld {
  readonly pulls: Map<number, FakePull>;
  readonly refs: Map<string, string>;
  readonly statuses: Map<string, FakeStatus[]>;
  /** A merge commit of `head` into `base` (commits), null on a conflict. */
  mergeCommits(base: string, head: string): string | null;
  /** Moves `branch` to `sha` after marking `members` merged by it. */
  landStack(branch: string, sha: string, members: FakePull[]): void;
  /** A `pull_request` webhook GitHub would send now (the fake's outbox). */
  emit(action: string, pull: FakePull, extra?: Record<string, unknown>): void;
  headRefOf(pull: FakePull): string;
}

export const STACK_MERGE_REFUSAL = 'This pull request is part of a stack and must be merged sequentially using the stack merge API';
const MAX_MEMBERS = 100;

/**
 * GitHub's native stacks (public preview, 2026) in the fake: the `stack` object of a PR, the Stacks
 * API (list, get, create, add, unstack; 404 where the repository has none: `enabled`), and the
 * asynchronous merge, which merges every member from the bottom up to the named PR at once when it
 * runs, checking the branch rules for every member then, with no bypass.
 */
export class FakeStacks {
  /** The repository has stacks (else the Stacks API answers 404). */
  enabled = true;
  readonly stacks: FakeStack[] = [];
  /** Polls of a pending asynchronous merge that still answer `pending` before it runs. */
  pollsBeforeRun = 0;
  /** Commit statuses every member's head must have passed when a stack merge runs (the target's rules). */
  requiredStatuses: string[] = [];
  readonly mergeRequests = new Map<string, FakeMergeRequest>();
  private seq = 0;

  constructor(private readonly world: StackWorld) {}

  stackOf(pr: number): FakeStack | undefined {
    return this.stacks.find((s) => s.prs.includes(pr));
  }

  /** The `stack` field of PR `pr`'s resource. */
  stackField(pr: number): Record<string, unknown> | null {
    const stack = this.stackOf(pr);
    if (!stack) return null;
    return { id: stack.id, number: stack.number, size: stack.prs.length, position: stack.prs.indexOf(pr) + 1, base: { ref: stack.base, sha: this.world.refs.get(stack.base) ?? null } };
  }

  /** `POST …/stacks`: 2 to 100 open PRs, each based on the head branch of the one before. */
  create(prs: number[]): Reply {
    const invalid = this.invalidMembers(prs, null);
    if (invalid) return invalid;
    if (prs.length < 2) return validation('A stack needs at least 2 pull requests');
    const id = 9000 + ++this.seq;
    const stack: FakeStack = { id, number: this.seq, base: this.world.pulls.get(prs[0]!)!.base, prs: [...prs] };
    this.stacks.push(stack);
    for (const n of prs) this.stacked(n);
    return [201, this.json(stack)];
  }

  /** `POST …/stacks/{number}/add`: PRs put on top, the first based on the top's head branch. */
  add(number: number, prs: number[]): Reply {
    const stack = this.byNumber(number);
    if (!stack) return notFound();
    const invalid = this.invalidMembers(prs, stack.prs[stack.prs.length - 1]!);
    if (invalid) return invalid;
    if (stack.prs.length + prs.length > MAX_MEMBERS) return validation(`A stack holds at most ${MAX_MEMBERS} pull requests`);
    stack.prs.push(...prs);
    for (const n of prs) this.stacked(n);
    return [200, this.json(stack)];
  }

  /** `POST …/stacks/{number}/unstack`: the PRs stay as they are, in no stack. */
  unstack(number: number): Reply {
    const stack = this.byNumber(number);
    if (!stack) return notFound();
    this.stacks.splice(this.stacks.indexOf(stack), 1);
    return [204];
  }

  /** The stacks routes, the asynchronous merge; null for any other route. */
  route(route: string, uri: string, body: Record<string, unknown>): Reply | null {
    let m: RegExpExecArray | null;
    if ((m = /^PUT \/pulls\/(\d+)\/merge-async$/.exec(route))) return this.submitMerge(Number(m[1]), body);
    if ((m = /^GET \/pulls\/(\d+)\/merge-async\/([^/]+)$/.exec(route))) return this.pollMerge(Number(m[1]), m[2]!);
    if (!/^(GET|POST) \/stacks(\/|$)/.test(route)) return null;
    if (!this.enabled) return notFound();
    if (route === 'GET /stacks') {
      const pr = new URL(uri, 'http://fake').searchParams.get('pull_request');
      return [200, this.stacks.filter((s) => pr === null || s.prs.includes(Number(pr))).map((s) => this.json(s))];
    }
    if (route === 'POST /stacks') return this.create(numbers(body.pull_requests));
    if ((m = /^GET \/stacks\/(\d+)$/.exec(route))) {
      const stack = this.byNumber(Number(m[1]));
      return stack ? [200, this.json(stack)] : notFound();
    }
    if ((m = /^POST \/stacks\/(\d+)\/add$/.exec(route))) return this.add(Number(m[1]), numbers(body.pull_requests));
    if ((m = /^POST \/stacks\/(\d+)\/unstack$/.exec(route))) return this.unstack(Number(m[1]));
    return null;
  }

  /**
   * `PUT …/merge-async`: 200 when merged already or put in the merge queue, 400 when it cannot merge
   * (closed, draft), 409 with the request already pending for the PR, else 202 with a new request.
   */
  private submitMerge(pr: number, body: Record<string, unknown>): Reply {
    const pull = this.world.pulls.get(pr);
    if (!pull) return notFound();
    if (pull.merged) return [200, { status: 'merged', details: { message: 'Pull request already merged', sha: pull.mergeCommitSha } }];
    if (pull.state !== 'open') return [400, { status: 'failed', details: { message: `Pull request #${pr} is closed` } }];
    if (pull.draft) return [400, { status: 'failed', details: { message: `Pull request #${pr} is a draft` } }];
    if (body.merge_action === 'merge_queue') return [200, { status: 'enqueued', details: { message: 'Pull request added to the merge queue' } }];
    const pending = [...this.mergeRequests.values()].find((r) => r.pr === pr && r.result === null);
    if (pending) return [409, pendingResult(pending)];
    const uuid = `merge-${++this.seq}`;
    const request = { uuid, pr, sha: String(body.sha ?? pull.head), method: String(body.merge_method ?? 'merge'), action: String(body.merge_action ?? 'default'), polls: 0, result: null };
    this.mergeRequests.set(uuid, request);
    return [202, pendingResult(request)];
  }

  private pollMerge(pr: number, uuid: string): Reply {
    const request = this.mergeRequests.get(uuid);
    if (!request || request.pr !== pr) return notFound();
    if (!request.result) {
      if (request.polls++ < this.pollsBeforeRun) return [200, pendingResult(request)];
      request.result = this.run(request);
    }
    return [200, request.result];
  }

  /** The merge, as it runs: every member up to the named PR, or none. */
  private run(request: FakeMergeRequest): MergeAsyncResult {
    const failed = (message: string): MergeAsyncResult => ({ status: 'failed', details: { message } });
    const top = this.world.pulls.get(request.pr)!;
    const stack = this.stackOf(top.number);
    const members = (stack ? stack.prs.slice(0, stack.prs.indexOf(top.number) + 1) : [top.number]).map((n) => this.world.pulls.get(n)!);
    if (top.head !== request.sha) return failed('Head branch was modified. Review and try the merge again.');
    for (const p of members) {
      if (p.state !== 'open') return failed(`Pull request #${p.number} is closed`);
      if (p.draft) return failed(`Pull request #${p.number} is a draft`);
      if (p.awaitsReview) return failed(`Pull request #${p.number}: At least 1 approving review is required by reviewers with write access.`);
      const passed = new Set((this.world.statuses.get(p.head) ?? []).filter((s) => s.state === 'success').map((s) => s.context));
      const missing = this.requiredStatuses.find((c) => !passed.has(c));
      if (missing) return failed(`Pull request #${p.number}: Required status check "${missing}" is expected.`);
    }
    const base = stack?.base ?? top.base;
    const merged = this.world.mergeCommits(this.world.refs.get(base)!, top.head);
    if (merged === null) return failed('Merge conflict');
    this.world.landStack(base, merged, members);
    if (stack) this.afterLanding(stack, members.length);
    for (const p of members) this.world.emit('closed', p);
    return { status: 'merged', details: { message: 'Pull request successfully merged', sha: merged } };
  }

  /** The members left above the landed ones form the stack, its new bottom based on the stack's base. */
  private afterLanding(stack: FakeStack, landed: number): void {
    stack.prs.splice(0, landed);
    if (stack.prs.length === 0) {
      this.stacks.splice(this.stacks.indexOf(stack), 1);
      return;
    }
    const bottom = this.world.pulls.get(stack.prs[0]!)!;
    const from = bottom.base;
    bottom.base = stack.base;
    this.world.emit('edited', bottom, { changes: { base: { ref: { from } } } });
  }

  private invalidMembers(prs: number[], below: number | null): Reply | null {
    if (prs.length > MAX_MEMBERS) return validation(`A stack holds at most ${MAX_MEMBERS} pull requests`);
    let previous = below === null ? null : this.world.pulls.get(below)!;
    for (const n of prs) {
      const pull = this.world.pulls.get(n);
      if (!pull) return validation(`Pull request #${n} does not exist`);
      if (pull.state !== 'open') return validation(`Pull request #${n} is not open`);
      if (this.stackOf(n)) return validation(`Pull request #${n} is already in a stack`);
      if (previous && pull.base !== this.world.headRefOf(previous)) return validation(`Pull request #${n} is not based on the head branch of #${previous.number}`);
      previous = pull;
    }
    return null;
  }

  private stacked(pr: number): void {
    this.world.emit('stacked', this.world.pulls.get(pr)!, { stack: this.stackField(pr) });
  }

  private byNumber(number: number): FakeStack | undefined {
    return this.stacks.find((s) => s.number === number);
  }

  /** A stack as the Stacks API answers it: its PRs bottom to top. */
  private json(stack: FakeStack): Record<string, unknown> {
    return {
      id: stack.id,
      number: stack.number,
      base: { ref: stack.base },
      open: stack.prs.some((n) => this.world.pulls.get(n)!.state === 'open'),
      pull_requests: stack.prs.map((n) => {
        const p = this.world.pulls.get(n)!;
        return { number: n, state: p.state, draft: p.draft, merged_at: p.merged ? '2026-11-24T09:00:00Z' : null, head: { ref: this.world.headRefOf(p), sha: p.head }, base: { ref: p.base } };
      }),
    };
  }
}

function pendingResult(r: FakeMergeRequest): MergeAsyncResult {
  return { status: 'pending', details: { uuid: r.uuid, message: '', merge_method: r.method, merge_action: r.action, expected_head_sha: r.sha } };
}

function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.map(Number) : [];
}

function validation(message: string): Reply {
  return [422, { message: 'Validation Failed', errors: [{ resource: 'Stack', code: 'custom', message }] }];
}

function notFound(): Reply {
  return [404, { message: 'Not Found' }];
}

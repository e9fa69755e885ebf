import type { RepoRef } from '../../domain/repo.js';
import type { MergeMethod } from '../../domain/settings.js';
import { MAX_STACK_MEMBERS, type PullRequestStack, type StackMemberInfo } from '../../domain/stack.js';
import type { MergeResult } from '../githost.js';
import { repoParams, type Octokit } from './github-client.js';
import { gitHubMessage, httpStatus, orWhen } from './github-errors.js';
import { toGitHubMergeMethod } from './github-mapping.js';

/** At most this many open PRs are read to follow a plain chain (10 pages of 100). */
export const MAX_OPEN_PULLS_READ = 1000;

/** How long a stack merge is polled before giving up (it may still land: the engine asks again). */
export const STACK_MERGE_TIMEOUT_MS = 5 * 60_000;
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 10_000;

export interface StackMergeTiming {
  sleep(ms: number): Promise<void>;
  now(): number;
}

/** A PR as the pulls API lists it, as far as stacks are concerned. */
interface StackPull {
  number: number;
  state: string;
  draft?: boolean;
  merged_at?: string | null;
  head: { ref: string; sha: string; repo?: { full_name: string } | null };
  base: { ref: string };
  stack?: { id: number; number: number } | null;
}

interface StackResource {
  id: number;
  number: number;
  base: { ref: string };
  pull_requests: { number: number; state: string; draft?: boolean; merged_at?: string | null; head: { ref: string; sha: string }; base?: { ref: string } }[];
}

/**
 * The stack PR `prNumber` belongs to: GitHub's native stack when its resource names one (and the
 * Stacks API answers), else the plain chain of open PRs through it (base branch = the head branch
 * of the PR below), or null when it stands alone, is not open, or is unknown.
 */
export async function readStack(octokit: Octokit, repo: RepoRef, prNumber: number): Promise<PullRequestStack | null> {
  const pr = await orWhen([404], null, async () => (await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...repoParams(repo), pull_number: prNumber })).data as unknown as StackPull);
  if (!pr || pr.state !== 'open') return null;
  if (pr.stack) {
    const native = await readNativeStack(octokit, repo, pr.stack.number);
    if (native) return native;
  }
  return readChain(octokit, repo, pr);
}

async function readNativeStack(octokit: Octokit, repo: RepoRef, number: number): Promise<PullRequestStack | null> {
  // 404: the repository has no stacks (any more), or the stack was dissolved since.
  const stack = await orWhen([404], null, async () => (await octokit.request('GET /repos/{owner}/{repo}/stacks/{stack_number}', { ...repoParams(repo), stack_number: number })).data as StackResource);
  if (!stack) return null;
  const members: StackMemberInfo[] = [];
  let below = stack.base.ref;
  for (const p of stack.pull_requests) {
    const state = p.merged_at ? 'merged' : p.state === 'open' ? 'open' : 'closed';
    if (state === 'open') members.push({ number: p.number, headSha: p.head.sha, headRef: p.head.ref, baseRef: p.base?.ref ?? below, state, draft: p.draft ?? false });
    below = p.head.ref;
  }
  return { kind: 'native', id: `native:${stack.id}`, number: stack.number, target: stack.base.ref, members: members.slice(0, MAX_STACK_MEMBERS) };
}

/**
 * Down from `pr` through the PRs whose head branch is the base of the one above, to a branch that is
 * no open PR's head (the target); up while exactly one open PR is based on the top's head branch.
 */
async function readChain(octokit: Octokit, repo: RepoRef, pr: StackPull): Promise<PullRequestStack | null> {
  const open = await openPulls(octokit, repo);
  const fullName = `${repo.owner}/${repo.name}`;
  const sameRepo = (p: StackPull) => !p.head.repo || p.head.repo.full_name.toLowerCase() === fullName.toLowerCase();
  const byHead = new Map(open.filter(sameRepo).map((p) => [p.head.ref, p]));
  const chain = [pr];
  const seen = new Set([pr.number]);
  for (let below = byHead.get(pr.base.ref); below && !seen.has(below.number) && chain.length < MAX_STACK_MEMBERS; below = byHead.get(below.base.ref)) {
    chain.unshift(below);
    seen.add(below.number);
  }
  for (;;) {
    const top = chain[chain.length - 1]!;
    const above = sameRepo(top) ? open.filter((p) => p.base.ref === top.head.ref) : [];
    if (above.length !== 1 || seen.has(above[0]!.number) || chain.length >= MAX_STACK_MEMBERS) break;
    chain.push(above[0]!);
    seen.add(above[0]!.number);
  }
  if (chain.length < 2) return null;
  return {
    kind: 'chain',
    id: `chain:${chain[0]!.number}`,
    number: null,
    target: chain[0]!.base.ref,
    members: chain.map((p) => ({ number: p.number, headSha: p.head.sha, headRef: p.head.ref, baseRef: p.base.ref, state: 'open', draft: p.draft ?? false })),
  };
}

async function openPulls(octokit: Octokit, repo: RepoRef): Promise<StackPull[]> {
  const pulls: StackPull[] = [];
  for await (const page of octokit.paginate.iterator('GET /repos/{owner}/{repo}/pulls', { ...repoParams(repo), state: 'open', per_page: 100 })) {
    pulls.push(...(page.data as unknown as StackPull[]));
    if (pulls.length >= MAX_OPEN_PULLS_READ) break;
  }
  return pulls;
}

type MergeAsyncAnswer =
  | { status: 'pending'; details: { uuid: string; expected_head_sha?: string } }
  | { status: 'merged'; details: { sha: string } }
  | { status: 'enqueued' }
  | { status: 'failed'; details: { message: string } };

/**
 * GitHub's asynchronous merge of every member up to `topPrNumber`, pinned to its head, polled with a
 * doubling pause until it ends. GitHub answers a PR that cannot merge (closed, a draft) at once with
 * 400, and a request already pending for the PR (one made before a crash or a timeout) with 409 and
 * that request, which is polled when it is pinned to the same head. A failure mentioning a changed
 * head is `pr_updated`; any other (a member's rules, a conflict) is `merge_conflict`. Still pending
 * after STACK_MERGE_TIMEOUT_MS: throws (the engine retries; a merge that landed meanwhile answers
 * `merged` to the next submission).
 */
export async function mergeStack(octokit: Octokit, repo: RepoRef, topPrNumber: number, opts: { expectedSha: string; method: MergeMethod }, timing: StackMergeTiming): Promise<MergeResult> {
  let answer: MergeAsyncAnswer;
  try {
    const { data } = await octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge-async', {
      ...repoParams(repo),
      pull_number: topPrNumber,
      merge_method: toGitHubMergeMethod(opts.method),
      merge_action: 'direct_merge',
      sha: opts.expectedSha,
    });
    answer = data as MergeAsyncAnswer;
  } catch (error) {
    const status = httpStatus(error);
    const result = mergeAsyncResult(error);
    if ((status === 400 || status === 409) && result) answer = result;
    else if (status === 409) return { ok: false, code: 'pr_updated', message: gitHubMessage(error) };
    else if (status === 405 || status === 422) return { ok: false, code: 'merge_conflict', message: gitHubMessage(error) };
    else throw error;
  }
  if (answer.status === 'pending' && answer.details.expected_head_sha && answer.details.expected_head_sha !== opts.expectedSha) {
    return { ok: false, code: 'pr_updated', message: `a stack merge of #${topPrNumber} pinned to ${answer.details.expected_head_sha} is pending, not one of the tested head ${opts.expectedSha}` };
  }
  const deadline = timing.now() + STACK_MERGE_TIMEOUT_MS;
  for (let pause = FIRST_POLL_MS; answer.status === 'pending'; pause = Math.min(pause * 2, MAX_POLL_MS)) {
    if (timing.now() >= deadline) throw new Error(`the stack merge of #${topPrNumber} was still pending after ${STACK_MERGE_TIMEOUT_MS / 60_000} minutes`);
    await timing.sleep(pause);
    const { uuid } = answer.details;
    answer = (await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}', { ...repoParams(repo), pull_number: topPrNumber, uuid })).data as MergeAsyncAnswer;
  }
  switch (answer.status) {
    case 'merged':
      return { ok: true, sha: answer.details.sha };
    case 'enqueued':
      return { ok: false, code: 'merge_conflict', message: "GitHub put the stack in its own merge queue instead of merging it: the repository's rules require a merge queue" };
    case 'failed': {
      const message = answer.details.message;
      return { ok: false, code: /head branch was modified|has been updated|sha/i.test(message) ? 'pr_updated' : 'merge_conflict', message };
    }
  }
}

/** The merge result GitHub sends with a 400 or a 409, if that is what the error carries. */
function mergeAsyncResult(error: unknown): MergeAsyncAnswer | null {
  const data = typeof error === 'object' && error !== null && 'response' in error ? (error.response as { data?: unknown } | undefined)?.data : undefined;
  if (typeof data !== 'object' || data === null || !('status' in data) || !('details' in data)) return null;
  return ['pending', 'merged', 'enqueued', 'failed'].includes(String(data.status)) ? (data as MergeAsyncAnswer) : null;
}

import nock from 'nock';
import type { Octokit } from '../../src/githost/github/github-client.js';
import { GitHubGitHost } from '../../src/githost/github/github-host.js';
import { classifyWrite } from '../../src/githost/github/write-class.js';
import { FakeGitHub } from '../../src/testing/fake-github.js';
import { serveWithNock } from '../github-app/fake-github.js';
import { TestOctokit } from './github-test-client.js';

const API = 'https://api.github.com';
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const R = '/repos/acme/widgets';

/** The pauses a stack merge took between polls, in a clock that moves by them. */
let slept: number[];
let clock: number;

function host(): GitHubGitHost {
  const octokit: Octokit = new TestOctokit({ auth: 'token test' });
  slept = [];
  clock = 0;
  const stackMergeTiming = {
    sleep: async (ms: number) => {
      slept.push(ms);
      clock += ms;
    },
    now: () => clock,
  };
  return new GitHubGitHost({ octokitFor: async () => octokit, stackMergeTiming });
}

function pull(number: number, base: string, extra: Record<string, unknown> = {}) {
  return { number, state: 'open', draft: false, head: { ref: `b${number}`, sha: `s${number}`, repo: { full_name: 'acme/widgets' } }, base: { ref: base }, stack: null, ...extra };
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
  nock.enableNetConnect();
  nock.restore();
});

describe('getStack', () => {
  test("a native stack: the PR's stack object, then the stack's PRs bottom to top; merged members are left out", async () => {
    const scope = nock(API)
      .get(`${R}/pulls/3`)
      .reply(200, pull(3, 'b2', { stack: { id: 77, number: 5, size: 3, position: 3, base: { ref: 'main', sha: 'm0' } } }))
      .get(`${R}/stacks/5`)
      .reply(200, {
        id: 77,
        number: 5,
        base: { ref: 'main', sha: 'm0' },
        pull_requests: [
          { number: 1, state: 'closed', draft: false, merged_at: '2026-11-24T09:00:00Z', head: { ref: 'b1', sha: 's1' } },
          { number: 2, state: 'open', draft: true, merged_at: null, head: { ref: 'b2', sha: 's2' } },
          { number: 3, state: 'open', draft: false, merged_at: null, head: { ref: 'b3', sha: 's3' } },
        ],
      });
    await expect(host().getStack(repo, 3)).resolves.toEqual({
      kind: 'native',
      id: 'native:77',
      number: 5,
      target: 'main',
      members: [
        { number: 2, headSha: 's2', headRef: 'b2', baseRef: 'b1', state: 'open', draft: true },
        { number: 3, headSha: 's3', headRef: 'b3', baseRef: 'b2', state: 'open', draft: false },
      ],
    });
    scope.done();
  });

  test('a plain chain: the open PRs, read a page at a time, followed down to the target and up while one PR is based on the top; forks are no links', async () => {
    const scope = nock(API)
      .get(`${R}/pulls/2`)
      .reply(200, pull(2, 'b1'))
      .get(`${R}/pulls`)
      .query({ state: 'open', per_page: '100' })
      .reply(200, [pull(4, 'b3'), pull(2, 'b1'), pull(9, 'main', { head: { ref: 'b1', sha: 'fork', repo: { full_name: 'someone/widgets' } } })], { link: `<${API}${R}/pulls?state=open&per_page=100&page=2>; rel="next"` })
      .get(`${R}/pulls`)
      .query({ state: 'open', per_page: '100', page: '2' })
      .reply(200, [pull(3, 'b2'), pull(1, 'main'), pull(8, 'main')]);
    const stack = await host().getStack(repo, 2);
    expect(stack).toMatchObject({ kind: 'chain', id: 'chain:1', number: null, target: 'main' });
    expect(stack!.members.map((m) => [m.number, m.baseRef, m.headRef, m.headSha])).toEqual([
      [1, 'main', 'b1', 's1'],
      [2, 'b1', 'b2', 's2'],
      [3, 'b2', 'b3', 's3'],
      [4, 'b3', 'b4', 's4'],
    ]);
    scope.done();
  });

  test('two PRs based on one branch: the chain stops below them', async () => {
    const scope = nock(API)
      .get(`${R}/pulls/1`)
      .reply(200, pull(1, 'main'))
      .get(`${R}/pulls`)
      .query(true)
      .reply(200, [pull(1, 'main'), pull(2, 'b1'), pull(3, 'b1')]);
    await expect(host().getStack(repo, 1)).resolves.toBeNull();
    scope.done();
  });

  test('a PR on its own, a closed PR, an unknown PR: no stack; a stack number the Stacks API does not know (404): the chain', async () => {
    const scope = nock(API)
      .get(`${R}/pulls/1`)
      .reply(200, pull(1, 'main'))
      .get(`${R}/pulls`)
      .query(true)
      .reply(200, [pull(1, 'main'), pull(7, 'main')])
      .get(`${R}/pulls/2`)
      .reply(200, pull(2, 'b1', { state: 'closed' }))
      .get(`${R}/pulls/3`)
      .reply(404, { message: 'Not Found' })
      .get(`${R}/pulls/4`)
      .reply(200, pull(4, 'main', { stack: { id: 1, number: 1, size: 2, position: 1, base: { ref: 'main', sha: 'm0' } } }))
      .get(`${R}/stacks/1`)
      .reply(404, { message: 'Not Found' })
      .get(`${R}/pulls`)
      .query(true)
      .reply(200, [pull(4, 'main')]);
    const gitHost = host();
    for (const n of [1, 2, 3, 4]) await expect(gitHost.getStack(repo, n)).resolves.toBeNull();
    scope.done();
  });
});

test('retargetPullRequest patches the base of the PR', async () => {
  const scope = nock(API).patch(`${R}/pulls/3`, { base: 'main' }).reply(200, pull(3, 'main'));
  await host().retargetPullRequest(repo, 3, 'main');
  scope.done();
});

describe('mergeStack', () => {
  const submit = (scope: nock.Scope) =>
    scope.put(`${R}/pulls/3/merge-async`, { merge_method: 'merge', merge_action: 'direct_merge', sha: 's3' }).reply(202, { status: 'pending', details: { uuid: 'u1' } });
  const opts = { expectedSha: 's3', method: 'merge_commit' as const };

  test('submits the direct merge pinned to the head, then polls with growing pauses until it is merged', async () => {
    const scope = submit(nock(API))
      .get(`${R}/pulls/3/merge-async/u1`)
      .times(2)
      .reply(200, { status: 'pending', details: { uuid: 'u1' } })
      .get(`${R}/pulls/3/merge-async/u1`)
      .reply(200, { status: 'merged', details: { sha: 'landed' } });
    await expect(host().mergeStack(repo, 3, opts)).resolves.toEqual({ ok: true, sha: 'landed' });
    expect(slept).toEqual([500, 1000, 2000]);
    scope.done();
  });

  test("a failure is GitHub's message: a changed head is pr_updated, a member's rules merge_conflict", async () => {
    let scope = submit(nock(API)).get(`${R}/pulls/3/merge-async/u1`).reply(200, { status: 'failed', details: { message: 'Pull request #2: At least 1 approving review is required by reviewers with write access.' } });
    await expect(host().mergeStack(repo, 3, opts)).resolves.toEqual({ ok: false, code: 'merge_conflict', message: 'Pull request #2: At least 1 approving review is required by reviewers with write access.' });
    scope.done();
    scope = submit(nock(API)).get(`${R}/pulls/3/merge-async/u1`).reply(200, { status: 'failed', details: { message: 'Head branch was modified. Review and try the merge again.' } });
    await expect(host().mergeStack(repo, 3, opts)).resolves.toMatchObject({ ok: false, code: 'pr_updated' });
    scope.done();
  });

  test('answered at once: merged already (200), cannot merge (400, a draft); a request pending for another head (409) is pr_updated', async () => {
    const scope = nock(API)
      .put(`${R}/pulls/3/merge-async`)
      .reply(200, { status: 'merged', details: { message: 'Pull request already merged', sha: 'before' } })
      .put(`${R}/pulls/3/merge-async`)
      .reply(400, { status: 'failed', details: { message: 'Pull request #3 is a draft' } })
      .put(`${R}/pulls/3/merge-async`)
      .reply(409, { status: 'pending', details: { uuid: 'u0', message: '', merge_method: 'merge', merge_action: 'direct_merge', expected_head_sha: 'older' } })
      .put(`${R}/pulls/3/merge-async`)
      .reply(409, { message: 'Conflict' });
    const gitHost = host();
    await expect(gitHost.mergeStack(repo, 3, opts)).resolves.toEqual({ ok: true, sha: 'before' });
    await expect(gitHost.mergeStack(repo, 3, opts)).resolves.toEqual({ ok: false, code: 'merge_conflict', message: 'Pull request #3 is a draft' });
    await expect(gitHost.mergeStack(repo, 3, opts)).resolves.toMatchObject({ ok: false, code: 'pr_updated', message: expect.stringContaining('older') });
    await expect(gitHost.mergeStack(repo, 3, opts)).resolves.toMatchObject({ ok: false, code: 'pr_updated' });
    expect(slept).toEqual([]);
    scope.done();
  });

  test('a request already pending for the tested head (made before a crash) is polled to its end', async () => {
    const scope = nock(API)
      .put(`${R}/pulls/3/merge-async`)
      .reply(409, { status: 'pending', details: { uuid: 'u0', message: '', merge_method: 'merge', merge_action: 'direct_merge', expected_head_sha: 's3' } })
      .get(`${R}/pulls/3/merge-async/u0`)
      .reply(200, { status: 'merged', details: { message: '', sha: 'landed' } });
    await expect(host().mergeStack(repo, 3, opts)).resolves.toEqual({ ok: true, sha: 'landed' });
    scope.done();
  });

  test('still pending after five minutes: it throws, for the engine to ask again', async () => {
    // 500, 1000, 2000, 4000, 8000 ms, then every 10 s: 34 polls until 300 s have passed.
    const scope = submit(nock(API)).get(`${R}/pulls/3/merge-async/u1`).times(34).reply(200, { status: 'pending', details: { uuid: 'u1' } });
    await expect(host().mergeStack(repo, 3, opts)).rejects.toThrow('still pending after 5 minutes');
    expect(slept.slice(0, 6)).toEqual([500, 1000, 2000, 4000, 8000, 10_000]);
    expect(clock).toBe(305_500);
    scope.done();
  });
});

test('the write budget counts a stack merge and a retarget as the queue’s own writes; polling is a read', () => {
  const p = { owner: 'acme', repo: 'widgets' };
  expect(classifyWrite('PUT', '/repos/{owner}/{repo}/pulls/{pull_number}/merge-async', p)).toEqual({ cls: 'queue', kind: 'merges', key: null });
  expect(classifyWrite('PATCH', '/repos/{owner}/{repo}/pulls/{pull_number}', p)).toEqual({ cls: 'queue', kind: 'pulls', key: null });
  expect(classifyWrite('GET', '/repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}', p)).toBeNull();
});

describe('against the fake GitHub', () => {
  let fake: FakeGitHub;
  beforeEach(() => {
    fake = new FakeGitHub();
    serveWithNock(fake);
  });

  test('a chain and a native stack are read alike; a chain member retargeted and the target fast-forwarded marks them merged', async () => {
    fake.openChain([1, 2, 3]);
    fake.openStack([11, 12], 'main');
    const gitHost = host();
    expect((await gitHost.getStack(repo, 3))?.members.map((m) => m.number)).toEqual([1, 2, 3]);
    expect(await gitHost.getStack(repo, 12)).toMatchObject({ kind: 'native', target: 'main', members: [{ number: 11, baseRef: 'main' }, { number: 12, baseRef: 'feature-11' }] });
    for (const n of [2, 3]) await gitHost.retargetPullRequest(repo, n, 'main');
    await expect(gitHost.fastForward(repo, 'main', 'head3')).resolves.toEqual({ ok: true });
    expect(fake.merged).toEqual([1, 2, 3]);
  });

  test('a native stack lands with one merge-async; the legacy merge is refused', async () => {
    fake.openStack([1, 2, 3]);
    fake.stacks.pollsBeforeRun = 2;
    const gitHost = host();
    await expect(gitHost.mergePullRequest(repo, 1, { expectedSha: 'head1', method: 'merge_commit' })).resolves.toMatchObject({ ok: false, message: expect.stringContaining('stack merge API') });
    const merged = await gitHost.mergeStack(repo, 3, { expectedSha: 'head3', method: 'merge_commit' });
    expect(merged).toEqual({ ok: true, sha: fake.refs.get('main') });
    expect(fake.merged).toEqual([1, 2, 3]);
    expect(slept).toEqual([500, 1000, 2000]);
    expect(fake.writes.merges).toBe(2); // the refused legacy merge and the stack merge; polls are reads
  });
});

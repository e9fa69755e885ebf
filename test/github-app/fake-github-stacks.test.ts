import { FakeGitHub } from '../../src/testing/fake-github.js';

/** The fake GitHub's native stacks and plain chains, through its REST routes, as mergeq sees them. */
const R = '/repos/acme/widgets';
let fake: FakeGitHub;
const call = (method: string, path: string, body: Record<string, unknown> = {}) => fake.handle(method, `${R}${path}`, body);

beforeEach(() => {
  fake = new FakeGitHub();
});

describe('native stacks', () => {
  test('every PR resource carries its stack; the Stacks API lists and reads it; joining sends `stacked`', () => {
    fake.openPull(9);
    fake.openStack([1, 2, 3]);
    expect(call('GET', '/pulls/2')[1]).toMatchObject({ base: { ref: 'feature-1' }, stack: { number: 1, size: 3, position: 2, base: { ref: 'main', sha: 'base0' } } });
    expect(call('GET', '/pulls/9')[1]).toMatchObject({ stack: null });
    const [, stack] = call('GET', '/stacks/1');
    expect(stack).toMatchObject({ number: 1, base: { ref: 'main' }, pull_requests: [1, 2, 3].map((n) => ({ number: n, state: 'open', draft: false, merged_at: null, head: { ref: `feature-${n}`, sha: `head${n}` } })) });
    expect(call('GET', '/stacks?pull_request=3')[1]).toEqual([stack]);
    expect(call('GET', '/stacks?pull_request=9')[1]).toEqual([]);
    expect(fake.takeWebhooks().map((w) => [w.payload.action, w.payload.number, (w.payload.stack as { position: number }).position])).toEqual([
      ['stacked', 1, 1],
      ['stacked', 2, 2],
      ['stacked', 3, 3],
    ]);
  });

  test('create takes 2 to 100 open PRs each based on the one below; add puts more on top; unstack dissolves it', () => {
    fake.openChain([1, 2, 3, 4]);
    fake.openPull(5);
    expect(call('POST', '/stacks', { pull_requests: [1] })[0]).toBe(422);
    expect(call('POST', '/stacks', { pull_requests: [1, 3] })[0]).toBe(422); // #3 is based on #2's branch
    expect(call('POST', '/stacks', { pull_requests: [1, 2] })[0]).toBe(201);
    expect(call('POST', '/stacks', { pull_requests: [2, 3] })[0]).toBe(422); // #2 is stacked already
    expect(call('POST', '/stacks/1/add', { pull_requests: [5] })[0]).toBe(422);
    expect(call('POST', '/stacks/1/add', { pull_requests: [3, 4] })[0]).toBe(200);
    expect(call('GET', '/pulls/4')[1]).toMatchObject({ stack: { size: 4, position: 4 } });
    expect(call('POST', '/stacks/1/unstack')[0]).toBe(204);
    expect(call('GET', '/pulls/4')[1]).toMatchObject({ stack: null });
    expect(call('GET', '/stacks/1')[0]).toBe(404);
  });

  test('a repository without stacks answers 404 on the Stacks API', () => {
    fake.stacks.enabled = false;
    expect(call('GET', '/stacks')[0]).toBe(404);
    expect(call('GET', '/stacks/1')[0]).toBe(404);
  });

  test('the legacy merge refuses a stacked PR; merge-async lands every member up to the named one at once, when polled', () => {
    fake.openStack([1, 2, 3]);
    expect(call('PUT', '/pulls/1/merge', { sha: 'head1' })).toEqual([405, { message: 'This pull request is part of a stack and must be merged sequentially using the stack merge API' }]);
    const [status, submitted] = call('PUT', '/pulls/2/merge-async', { merge_method: 'merge', merge_action: 'direct_merge', sha: 'head2' });
    expect(status).toBe(202);
    const { uuid } = (submitted as { details: { uuid: string } }).details;
    expect(fake.merged).toEqual([]); // in the background: nothing yet
    // Asked again while it is pending: 409 with the pending request.
    expect(call('PUT', '/pulls/2/merge-async', { sha: 'head2' })).toEqual([409, { status: 'pending', details: { uuid, message: '', merge_method: 'merge', merge_action: 'direct_merge', expected_head_sha: 'head2' } }]);
    const [, result] = call('GET', `/pulls/2/merge-async/${uuid}`);
    expect(result).toMatchObject({ status: 'merged', details: { sha: fake.refs.get('main') } });
    expect(fake.merged).toEqual([1, 2]);
    expect(fake.contentOf('main')).toEqual([1, 2]);
    // #3 is what is left of the stack, now based on main.
    expect(call('GET', '/pulls/3')[1]).toMatchObject({ base: { ref: 'main' }, stack: { size: 1, position: 1 } });
    expect(call('GET', `/pulls/2/merge-async/${uuid}`)[1]).toEqual(result);
    expect(call('PUT', '/pulls/2/merge-async', { sha: 'head2' })[1]).toMatchObject({ status: 'merged' });
  });

  test('merge-async checks the rules of every member when it runs, with no bypass; a failure merges nothing', () => {
    fake.openStack([1, 2, 3]);
    fake.stacks.pollsBeforeRun = 1;
    const submit = () => ((call('PUT', '/pulls/3/merge-async', { merge_method: 'merge', merge_action: 'direct_merge', sha: 'head3' })[1] as { details: { uuid: string } }).details.uuid);
    let uuid = submit();
    expect(call('GET', `/pulls/3/merge-async/${uuid}`)[1]).toMatchObject({ status: 'pending' });
    fake.dismissApproval(2); // between the submission and the run
    expect(call('GET', `/pulls/3/merge-async/${uuid}`)[1]).toEqual({ status: 'failed', details: { message: 'Pull request #2: At least 1 approving review is required by reviewers with write access.' } });

    fake.approve(2);
    fake.stacks.pollsBeforeRun = 0;
    fake.stacks.requiredStatuses = ['mergeq (main)'];
    for (const n of [1, 3]) fake.setStatus(`head${n}`, { context: 'mergeq (main)', state: 'success', target_url: null, description: '' });
    uuid = submit();
    expect(call('GET', `/pulls/3/merge-async/${uuid}`)[1]).toMatchObject({ status: 'failed', details: { message: 'Pull request #2: Required status check "mergeq (main)" is expected.' } });

    fake.stacks.requiredStatuses = [];
    fake.pushToPull(3, 'head3b');
    uuid = submit(); // pinned to the old head
    expect(call('GET', `/pulls/3/merge-async/${uuid}`)[1]).toMatchObject({ status: 'failed', details: { message: expect.stringContaining('Head branch was modified') } });
    expect(fake.merged).toEqual([]);
    expect(fake.refs.get('main')).toBe('base0');
    expect(call('PUT', '/pulls/3/merge-async', { merge_action: 'merge_queue', sha: 'head3b' })[1]).toMatchObject({ status: 'enqueued' });
    fake.pulls.get(3)!.draft = true;
    expect(call('PUT', '/pulls/3/merge-async', { sha: 'head3b' })).toEqual([400, { status: 'failed', details: { message: 'Pull request #3 is a draft' } }]);
  });
});

describe('plain chains', () => {
  test('retargeting changes the base of an open PR; a closed one cannot be retargeted', () => {
    fake.openChain([1, 2]);
    expect(call('PATCH', '/pulls/2', { base: 'main' })).toMatchObject([200, { base: { ref: 'main' } }]);
    expect(fake.takeWebhooks().map((w) => [w.payload.action, w.payload.number, w.payload.changes])).toEqual([['edited', 2, { base: { ref: { from: 'feature-1' } } }]]);
    fake.pulls.get(1)!.state = 'closed';
    expect(call('PATCH', '/pulls/1', { base: 'feature-2' })[0]).toBe(422);
  });

  test('a fast-forward of the target marks merged the members based on it, and only those', () => {
    fake.openChain([1, 2, 3]);
    call('PATCH', '/pulls/2', { base: 'main' });
    expect(call('PATCH', '/git/refs/heads/main', { sha: 'head3' })[0]).toBe(200);
    expect(fake.merged).toEqual([1, 2]);
    expect(fake.pulls.get(3)).toMatchObject({ state: 'open', base: 'feature-2' });
  });

  test("deleting a branch closes the PRs based on it, unless the branch's own PR was merged: then they are retargeted to its base", () => {
    fake.openChain([1, 2, 3]);
    call('PATCH', '/git/refs/heads/main', { sha: 'head1' });
    expect(fake.merged).toEqual([1]);
    fake.takeWebhooks();
    expect(call('DELETE', '/git/refs/heads/feature-1')[0]).toBe(204);
    expect(fake.pulls.get(2)).toMatchObject({ state: 'open', base: 'main' });
    expect(call('DELETE', '/git/refs/heads/feature-2')[0]).toBe(204);
    expect(fake.pulls.get(2)).toMatchObject({ state: 'closed', merged: false });
    expect(fake.pulls.get(3)).toMatchObject({ state: 'closed', merged: false, base: 'feature-2' });
    expect(fake.takeWebhooks().map((w) => [w.payload.action, w.payload.number])).toEqual([
      ['edited', 2],
      ['closed', 3],
      ['closed', 2],
    ]);
    expect(call('PATCH', '/pulls/3', { base: 'main' })[0]).toBe(422);
  });

  test("a PR merged alone keeps its head branch, and the PRs based on it keep that base; the list filters by base and by head", () => {
    fake.openChain([1, 2, 3]);
    call('PATCH', '/git/refs/heads/main', { sha: 'head1' });
    expect(fake.merged).toEqual([1]);
    expect(fake.refs.has('feature-1')).toBe(true);
    expect(fake.pulls.get(2)).toMatchObject({ state: 'open', base: 'feature-1' });
    const numbers = (uri: string) => (call('GET', uri)[1] as { number: number }[]).map((p) => p.number);
    expect(numbers('/pulls?state=open&base=feature-1')).toEqual([2]);
    expect(numbers(`/pulls?state=closed&head=${fake.owner}:feature-1`)).toEqual([1]);
  });

  test('the open PRs are listed a page at a time, newest first', () => {
    fake.openChain([1, 2, 3]);
    const [, page1, headers] = call('GET', '/pulls?state=open&per_page=2');
    expect((page1 as { number: number }[]).map((p) => p.number)).toEqual([3, 2]);
    expect(headers?.link).toContain('page=2');
    expect((call('GET', '/pulls?state=open&per_page=2&page=2')[1] as { number: number }[]).map((p) => p.number)).toEqual([1]);
  });
});

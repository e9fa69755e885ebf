import nock from 'nock';
import type { Octokit } from '../../src/githost/github/github-client.js';
import { GitHubGitHost } from '../../src/githost/github/github-host.js';
import { InstallationClients } from '../../src/githost/github/installation-clients.js';
import { TestOctokit } from './github-test-client.js';

const API = 'https://api.github.com';
const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const R = '/repos/acme/widgets';

function host(): GitHubGitHost {
  const octokit: Octokit = new TestOctokit({ auth: 'token test' });
  return new GitHubGitHost({ octokitFor: async () => octokit });
}

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => {
  nock.enableNetConnect();
  // nock patches node:http for the whole worker process; later test files in it must not see it.
  nock.restore();
});

describe('createTestBranch', () => {
  const spec = {
    name: 'mergeq/main/run-1',
    baseBranch: 'main',
    prs: [
      { number: 11, sha: 'a11' },
      { number: 12, sha: 'a12' },
      { number: 13, sha: 'a13' },
    ],
  };
  const scratchRef = `${R}/git/refs/heads%2Fmergeq-tmp%2Fmain`;

  /** No test branch yet; the target head is base0. */
  function start(scope: nock.Scope, name = 'run-1'): nock.Scope {
    return scope
      .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2F${name}`)
      .reply(404, { message: 'Not Found' })
      .get(`${R}/git/ref/heads%2Fmain`)
      .reply(200, { object: { sha: 'base0' } });
  }

  /** The scratch branch moved to `sha` (created, the first time: a PATCH of a missing ref is a 422). */
  function scratchAt(scope: nock.Scope, sha: string, exists = true): nock.Scope {
    const patched = scope.patch(scratchRef, { sha, force: true });
    if (exists) return patched.reply(200, {});
    return patched.reply(422, { message: 'Reference does not exist' }).post(`${R}/git/refs`, { ref: 'refs/heads/mergeq-tmp/main', sha }).reply(201, {});
  }

  function mergeBody(pr: { number: number; sha: string }, base = 'base0') {
    return (body: { base: string; head: string; commit_message: string }) =>
      body.base === 'mergeq-tmp/main' && body.head === pr.sha && body.commit_message === `Merge pull request #${pr.number}\n\nmergeq-base: ${base}`;
  }

  test('merges each PR in order on the scratch branch, then creates the branch once at the last merge; the scratch branch stays', async () => {
    const created: unknown[] = [];
    const scope = scratchAt(start(nock(API)), 'base0', false)
      .post(`${R}/merges`, mergeBody(spec.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/merges`, mergeBody(spec.prs[1]!))
      .reply(201, { sha: 'm2' })
      .post(`${R}/merges`, mergeBody(spec.prs[2]!))
      .reply(201, { sha: 'm3' })
      .post(`${R}/git/refs`, (body: { ref: string; sha: string }) => {
        created.push(body);
        return body.ref === 'refs/heads/mergeq/main/run-1';
      })
      .reply(201, { ref: 'refs/heads/mergeq/main/run-1', object: { sha: 'm3' } });

    await expect(host().createTestBranch(repo, spec)).resolves.toEqual({ ok: true, sha: 'm3', baseSha: 'base0', startSha: 'base0' });
    expect(created).toEqual([{ ref: 'refs/heads/mergeq/main/run-1', sha: 'm3' }]);
    scope.done();
  });

  test('a run that extends the last one built starts on its commit: nothing is moved and only the PRs after it are merged', async () => {
    const gitHost = host();
    const first = scratchAt(start(nock(API)), 'base0')
      .post(`${R}/merges`, mergeBody(spec.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
      .reply(201, {});
    await gitHost.createTestBranch(repo, { ...spec, prs: [spec.prs[0]!] });
    first.done();

    // No read of the target head, no move of the scratch branch: one merge and one create.
    const second = nock(API)
      .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2Frun-2`)
      .reply(404, { message: 'Not Found' })
      .post(`${R}/merges`, mergeBody(spec.prs[1]!, 'main1'))
      .reply(201, { sha: 'm2' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-2', sha: 'm2' })
      .reply(201, {});
    const extended = { ...spec, name: 'mergeq/main/run-2', prs: spec.prs.slice(0, 2), startFrom: { sha: 'm1', baseSha: 'main1', prCount: 1 } };
    await expect(gitHost.createTestBranch(repo, extended)).resolves.toEqual({ ok: true, sha: 'm2', baseSha: 'main1', startSha: 'm1' });
    second.done();
  });

  test('a start commit that is gone (422) is built from the target head instead', async () => {
    const scope = nock(API)
      .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2Frun-1`)
      .reply(404, { message: 'Not Found' })
      .patch(scratchRef, { sha: 'gone', force: true })
      .reply(422, { message: 'Object does not exist' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq-tmp/main', sha: 'gone' })
      .reply(422, { message: 'Object does not exist' })
      .get(`${R}/git/ref/heads%2Fmain`)
      .reply(200, { object: { sha: 'base0' } });
    scratchAt(scope, 'base0')
      .post(`${R}/merges`, mergeBody(spec.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
      .reply(201, {});
    const one = { ...spec, prs: [spec.prs[0]!], startFrom: { sha: 'gone', baseSha: 'main1', prCount: 0 } };
    await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0' });
    scope.done();
  });

  test('a PR already contained (204) leaves the head at the previous merge', async () => {
    const two = { ...spec, prs: spec.prs.slice(0, 2) };
    const scope = scratchAt(start(nock(API)), 'base0')
      .post(`${R}/merges`, mergeBody(two.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/merges`, mergeBody(two.prs[1]!))
      .reply(204)
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
      .reply(201, {});

    await expect(host().createTestBranch(repo, two)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0' });
    scope.done();
  });

  test('a conflict on the 2nd PR names it and creates no branch; the next build moves the scratch branch again', async () => {
    const gitHost = host();
    const scope = scratchAt(start(nock(API)), 'base0')
      .post(`${R}/merges`, mergeBody(spec.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/merges`, mergeBody(spec.prs[1]!))
      .reply(409, { message: 'Merge conflict' });
    await expect(gitHost.createTestBranch(repo, spec)).resolves.toEqual({ ok: false, conflictPrNumber: 12 });
    scope.done();

    const again = scratchAt(start(nock(API)), 'base0')
      .post(`${R}/merges`, mergeBody(spec.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
      .reply(201, {});
    await expect(gitHost.createTestBranch(repo, { ...spec, prs: [spec.prs[0]!] })).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0' });
    again.done();
    expect(nock.pendingMocks()).toEqual([]);
  });

  test('an existing test branch (a crash after it was built) is adopted with the base its merge commits name, without merging', async () => {
    const scope = nock(API)
      .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2Frun-1`)
      .reply(200, { object: { sha: 'm3' } })
      .get(`${R}/git/commits/m3`)
      .reply(200, { sha: 'm3', message: 'Merge PR 13 (a13) into mergeq/main/run-1\n\nmergeq-base: base-then' });

    await expect(host().createTestBranch(repo, spec)).resolves.toEqual({ ok: true, sha: 'm3', baseSha: 'base-then', adopted: true });
    scope.done();
  });

  test('an existing test branch whose base is unknown is deleted and built again', async () => {
    const one = { ...spec, prs: [spec.prs[0]!] };
    const scope = nock(API)
      .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2Frun-1`)
      .reply(200, { object: { sha: 'old' } })
      .get(`${R}/git/commits/old`)
      .reply(200, { sha: 'old', message: 'Merge PR 11 (a11) into mergeq/main/run-1' })
      .delete(`${R}/git/refs/heads%2Fmergeq%2Fmain%2Frun-1`)
      .reply(204)
      .get(`${R}/git/ref/heads%2Fmain`)
      .reply(200, { object: { sha: 'base0' } });
    scratchAt(scope, 'base0')
      .post(`${R}/merges`, mergeBody(one.prs[0]!))
      .reply(201, { sha: 'm1' })
      .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
      .reply(201, {});

    await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0' });
    scope.done();
  });

  describe('with a draft pull request (createPrsForTestingBranches)', () => {
    const draftPullRequest = { title: 'mergeq: test #11 on main', body: 'temporary' };
    const one = { ...spec, prs: [spec.prs[0]!], draftPullRequest };
    const pullBody = { title: 'mergeq: test #11 on main', body: 'temporary', head: 'mergeq/main/run-1', base: 'main', draft: true };

    /** The branch built from #11 at m1, as in the tests above. */
    function built(scope: nock.Scope): nock.Scope {
      return scratchAt(start(scope), 'base0')
        .post(`${R}/merges`, mergeBody(one.prs[0]!))
        .reply(201, { sha: 'm1' })
        .post(`${R}/git/refs`, { ref: 'refs/heads/mergeq/main/run-1', sha: 'm1' })
        .reply(201, {});
    }

    /** The branch found built at m1 on base0 (a crash after it was created). */
    function found(scope: nock.Scope): nock.Scope {
      return scope
        .get(`${R}/git/ref/heads%2Fmergeq%2Fmain%2Frun-1`)
        .reply(200, { object: { sha: 'm1' } })
        .get(`${R}/git/commits/m1`)
        .reply(200, { sha: 'm1', message: 'Merge PR 11 (a11) into mergeq/main/run-1\n\nmergeq-base: base0' });
    }

    test('opens a draft PR from the test branch into the base once the branch exists', async () => {
      const scope = built(nock(API)).post(`${R}/pulls`, pullBody).reply(201, { number: 40, draft: true });
      await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0' });
      scope.done();
    });

    test('a branch found already there (a crash before the PR) gets its PR', async () => {
      const scope = found(nock(API)).post(`${R}/pulls`, pullBody).reply(201, { number: 40, draft: true });
      await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', adopted: true });
      scope.done();
    });

    test('a 422 saying a PR already exists for the head is the PR opened before: no second one, no error', async () => {
      const scope = found(nock(API))
        .post(`${R}/pulls`, pullBody)
        .reply(422, {
          message: 'Validation Failed',
          errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for acme:mergeq/main/run-1.' }],
        });
      await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', adopted: true });
      scope.done();
    });

    test('another error opening the PR is answered with the built branch, not thrown', async () => {
      const scope = built(nock(API))
        .post(`${R}/pulls`, pullBody)
        .reply(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message: 'No commits between main and mergeq/main/run-1' }] });
      await expect(host().createTestBranch(repo, one)).resolves.toEqual({
        ok: true,
        sha: 'm1',
        baseSha: 'base0',
        startSha: 'base0',
        draftPullRequestError: '422 Validation Failed: No commits between main and mergeq/main/run-1',
      });
      scope.done();

      const unavailable = built(nock(API)).post(`${R}/pulls`, pullBody).reply(503, { message: 'Service Unavailable' });
      await expect(host().createTestBranch(repo, one)).resolves.toEqual({ ok: true, sha: 'm1', baseSha: 'base0', startSha: 'base0', draftPullRequestError: '503 Service Unavailable' });
      unavailable.done();
    });

    test('a conflict opens no PR', async () => {
      const two = { ...spec, prs: spec.prs.slice(0, 2), draftPullRequest };
      const scope = scratchAt(start(nock(API)), 'base0')
        .post(`${R}/merges`, mergeBody(two.prs[0]!))
        .reply(201, { sha: 'm1' })
        .post(`${R}/merges`, mergeBody(two.prs[1]!))
        .reply(409, { message: 'Merge conflict' });
      await expect(host().createTestBranch(repo, two)).resolves.toEqual({ ok: false, conflictPrNumber: 12 });
      scope.done();
    });
  });
});

describe('readStatuses', () => {
  test('is the union of commit statuses and check runs, check runs winning a shared name', async () => {
    const scope = nock(API)
      .get(`${R}/commits/c1/status`)
      .query({ per_page: 100 })
      .reply(200, {
        statuses: [
          { context: 'legacy', state: 'success', target_url: 'https://ci/legacy' },
          { context: 'build', state: 'failure', target_url: null },
          { context: 'lint', state: 'pending', target_url: null },
        ],
      })
      .get(`${R}/commits/c1/check-runs`)
      .query({ per_page: 100 })
      .reply(200, {
        total_count: 4,
        check_runs: [
          { name: 'build', status: 'completed', conclusion: 'success', html_url: 'https://gh/build' },
          { name: 'test', status: 'in_progress', conclusion: null, html_url: 'https://gh/test' },
          { name: 'e2e', status: 'completed', conclusion: 'timed_out', html_url: 'https://gh/e2e' },
          { name: 'deploy', status: 'completed', conclusion: 'cancelled', html_url: null },
        ],
      });

    await expect(host().readStatuses(repo, 'c1')).resolves.toEqual([
      { context: 'legacy', state: 'success', url: 'https://ci/legacy' },
      { context: 'build', state: 'success', url: 'https://gh/build' },
      { context: 'lint', state: 'pending', url: null },
      { context: 'test', state: 'pending', url: 'https://gh/test' },
      { context: 'e2e', state: 'failure', url: 'https://gh/e2e' },
      { context: 'deploy', state: 'error', url: null },
    ]);
    scope.done();
  });

  test('follows the pages of check runs', async () => {
    const scope = nock(API)
      .get(`${R}/commits/c1/status`)
      .query(true)
      .reply(200, { statuses: [] })
      .get(`${R}/commits/c1/check-runs`)
      .query({ per_page: 100 })
      .reply(
        200,
        { total_count: 2, check_runs: [{ name: 'a', status: 'completed', conclusion: 'skipped', html_url: null }] },
        { link: `<${API}${R}/commits/c1/check-runs?per_page=100&page=2>; rel="next"` },
      )
      .get(`${R}/commits/c1/check-runs`)
      .query({ per_page: 100, page: 2 })
      .reply(200, { total_count: 2, check_runs: [{ name: 'b', status: 'queued', conclusion: null, html_url: null }] });

    await expect(host().readStatuses(repo, 'c1')).resolves.toEqual([
      { context: 'a', state: 'success', url: null },
      { context: 'b', state: 'pending', url: null },
    ]);
    scope.done();
  });
});

describe('requiredStatuses', () => {
  test('unites branch protection and rulesets, without duplicates, in order', async () => {
    const scope = nock(API)
      .get(`${R}/branches/main/protection/required_status_checks`)
      .reply(200, { contexts: ['build', 'lint'], checks: [{ context: 'build' }, { context: 'test' }] })
      .get(`${R}/rules/branches/main`)
      .query(true)
      .reply(200, [
        { type: 'pull_request', parameters: {} },
        { type: 'required_status_checks', parameters: { required_status_checks: [{ context: 'test' }, { context: 'e2e' }] } },
      ]);

    await expect(host().requiredStatuses(repo, 'main')).resolves.toEqual(['build', 'lint', 'test', 'e2e']);
    scope.done();
  });

  test('a 404 from either source means none from it', async () => {
    const scope = nock(API)
      .get(`${R}/branches/main/protection/required_status_checks`)
      .reply(404, { message: 'Branch not protected' })
      .get(`${R}/rules/branches/main`)
      .query(true)
      .reply(200, [{ type: 'required_status_checks', parameters: { required_status_checks: [{ context: 'ci' }] } }]);
    await expect(host().requiredStatuses(repo, 'main')).resolves.toEqual(['ci']);
    scope.done();

    const none = nock(API)
      .get(`${R}/branches/main/protection/required_status_checks`)
      .reply(404, { message: 'Branch not protected' })
      .get(`${R}/rules/branches/main`)
      .query(true)
      .reply(404, { message: 'Not Found' });
    await expect(host().requiredStatuses(repo, 'main')).resolves.toEqual([]);
    none.done();
  });
});

describe('mergePullRequest', () => {
  const merge = (reply: [number, object]) =>
    nock(API)
      .put(`${R}/pulls/7/merge`, { sha: 'h7', merge_method: 'squash' })
      .reply(...reply);

  test('sends the expected head and the method, and answers the merge commit', async () => {
    const scope = merge([200, { sha: 'merged7', merged: true, message: 'Pull Request successfully merged' }]);
    await expect(host().mergePullRequest(repo, 7, { expectedSha: 'h7', method: 'squash' })).resolves.toEqual({ ok: true, sha: 'merged7' });
    scope.done();
  });

  test('merge_commit is GitHub\'s "merge"', async () => {
    const scope = nock(API).put(`${R}/pulls/7/merge`, { sha: 'h7', merge_method: 'merge' }).reply(200, { sha: 'merged7' });
    await expect(host().mergePullRequest(repo, 7, { expectedSha: 'h7', method: 'merge_commit' })).resolves.toEqual({ ok: true, sha: 'merged7' });
    scope.done();
  });

  test('a changed head (409) is pr_updated', async () => {
    const scope = merge([409, { message: 'Head branch was modified. Review and try the merge again.' }]);
    await expect(host().mergePullRequest(repo, 7, { expectedSha: 'h7', method: 'squash' })).resolves.toEqual({
      ok: false,
      code: 'pr_updated',
      message: 'Head branch was modified. Review and try the merge again.',
    });
    scope.done();
  });

  test.each([405, 422])('a refusal (%i) is merge_conflict with GitHub\'s message', async (status) => {
    const scope = merge([status, { message: 'Pull Request is not mergeable' }]);
    await expect(host().mergePullRequest(repo, 7, { expectedSha: 'h7', method: 'squash' })).resolves.toEqual({
      ok: false,
      code: 'merge_conflict',
      message: 'Pull Request is not mergeable',
    });
    scope.done();
  });

  test('other errors propagate', async () => {
    const scope = merge([500, { message: 'boom' }]);
    await expect(host().mergePullRequest(repo, 7, { expectedSha: 'h7', method: 'squash' })).rejects.toMatchObject({ status: 500 });
    scope.done();
  });
});

describe('getPullRequest', () => {
  const pull = {
    number: 5,
    title: 'Add widgets',
    state: 'open',
    merged: false,
    merge_commit_sha: 'test-merge',
    draft: false,
    mergeable: true,
    mergeable_state: 'clean',
    head: { sha: 'h5' },
    base: { ref: 'main' },
    user: { login: 'octocat' },
  };

  test('maps an open pull request', async () => {
    const scope = nock(API).get(`${R}/pulls/5`).reply(200, pull);
    await expect(host().getPullRequest(repo, 5)).resolves.toEqual({
      number: 5,
      title: 'Add widgets',
      headSha: 'h5',
      baseBranch: 'main',
      author: 'octocat',
      state: 'open',
      draft: false,
      mergeability: 'MERGEABLE',
      mergeCommitSha: null,
    });
    scope.done();
  });

  test('a merged pull request has its merge commit', async () => {
    const scope = nock(API)
      .get(`${R}/pulls/5`)
      .reply(200, { ...pull, state: 'closed', merged: true, merge_commit_sha: 'mc5', mergeable: null, mergeable_state: 'unknown' });
    await expect(host().getPullRequest(repo, 5)).resolves.toMatchObject({ state: 'merged', mergeCommitSha: 'mc5' });
    scope.done();
  });

  test('404 is null', async () => {
    const scope = nock(API).get(`${R}/pulls/5`).reply(404, { message: 'Not Found' });
    await expect(host().getPullRequest(repo, 5)).resolves.toBeNull();
    scope.done();
  });

  test('a 502 propagates with its status, so the engine retries', async () => {
    const scope = nock(API).get(`${R}/pulls/5`).reply(502, { message: 'Bad Gateway' });
    await expect(host().getPullRequest(repo, 5)).rejects.toMatchObject({ status: 502 });
    scope.done();
  });
});

describe('branches', () => {
  test('getBranchHead answers the ref sha, or null on 404', async () => {
    const scope = nock(API)
      .get(`${R}/git/ref/heads%2Fmain`)
      .reply(200, { object: { sha: 'b1' } })
      .get(`${R}/git/ref/heads%2Fgone`)
      .reply(404, { message: 'Not Found' });
    await expect(host().getBranchHead(repo, 'main')).resolves.toBe('b1');
    await expect(host().getBranchHead(repo, 'gone')).resolves.toBeNull();
    scope.done();
  });

  test('deleteBranch deletes the ref; 404 and 422 mean it is already gone', async () => {
    const scope = nock(API)
      .delete(`${R}/git/refs/heads%2Fmergeq%2Fmain%2Frun-1`)
      .reply(204)
      .delete(`${R}/git/refs/heads%2Fmergeq%2Fmain%2Frun-2`)
      .reply(404, { message: 'Not Found' })
      .delete(`${R}/git/refs/heads%2Fmergeq%2Fmain%2Frun-3`)
      .reply(422, { message: 'Reference does not exist' });
    await host().deleteBranch(repo, 'mergeq/main/run-1');
    await host().deleteBranch(repo, 'mergeq/main/run-2');
    await host().deleteBranch(repo, 'mergeq/main/run-3');
    scope.done();
  });

  test('deleteBranch propagates other errors', async () => {
    const scope = nock(API).delete(`${R}/git/refs/heads%2Fx`).reply(503, { message: 'unavailable' });
    await expect(host().deleteBranch(repo, 'x')).rejects.toMatchObject({ status: 503 });
    scope.done();
  });
});

describe('reportStatus', () => {
  test('posts the status, truncating the description to 140 characters', async () => {
    const long = 'x'.repeat(200);
    const scope = nock(API)
      .post(`${R}/statuses/s1`, (body: { state: string; context: string; description: string; target_url?: string }) => {
        return body.state === 'pending' && body.context === 'mergeq' && [...body.description].length === 140 && body.target_url === 'https://q/1';
      })
      .reply(201, {})
      .post(`${R}/statuses/s1`, { state: 'success', context: 'mergeq', description: 'merged' })
      .reply(201, {});
    await host().reportStatus(repo, 's1', { context: 'mergeq', state: 'pending', description: long, targetUrl: 'https://q/1' });
    await host().reportStatus(repo, 's1', { context: 'mergeq', state: 'success', description: 'merged', targetUrl: null });
    scope.done();
  });
});

describe('upsertPullRequestComment', () => {
  const marker = '<!-- mergeq:main -->';
  const comment = (text: string) => ({ marker, body: `${marker}\n${text}` });
  const comments = `${R}/issues/7/comments`;

  test('edits the comment that starts with the marker, found across pages; then edits it without listing', async () => {
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(
        200,
        [
          { id: 1, body: 'LGTM' },
          { id: 2, body: `> ${marker}\n> Testing\n\nwhy is this slow?` }, // a quote of it is not it
          { id: 3, body: '<!-- mergeq:release -->\nQueued' }, // another queue's
        ],
        { link: `<${API}${comments}?per_page=100&page=2>; rel="next"` },
      )
      .get(comments)
      .query({ per_page: 100, page: 2 })
      .reply(200, [{ id: 4, body: `${marker}\nQueued` }])
      .patch(`${R}/issues/comments/4`, { body: `${marker}\nTesting` })
      .reply(200, { id: 4 })
      .patch(`${R}/issues/comments/4`, { body: `${marker}\nMerged` })
      .reply(200, { id: 4 });
    const h = host();
    await h.upsertPullRequestComment(repo, 7, comment('Testing'));
    await h.upsertPullRequestComment(repo, 7, comment('Merged'));
    scope.done();
  });

  test('stops listing at the page that holds it', async () => {
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [{ id: 4, body: `${marker}\nQueued` }], { link: `<${API}${comments}?per_page=100&page=2>; rel="next"` })
      .patch(`${R}/issues/comments/4`, { body: `${marker}\nTesting` })
      .reply(200, { id: 4 });
    await host().upsertPullRequestComment(repo, 7, comment('Testing'));
    scope.done();
  });

  test('creates the comment when there is none, then edits the one it created', async () => {
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [{ id: 1, body: 'LGTM' }])
      .post(comments, { body: `${marker}\nQueued` })
      .reply(201, { id: 55 })
      .patch(`${R}/issues/comments/55`, { body: `${marker}\nTesting` })
      .reply(200, { id: 55 });
    const h = host();
    await h.upsertPullRequestComment(repo, 7, comment('Queued'));
    await h.upsertPullRequestComment(repo, 7, comment('Testing'));
    scope.done();
  });

  test('remembers comments per pull request and marker', async () => {
    const other = '<!-- mergeq:release -->';
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [])
      .post(comments, { body: `${marker}\nQueued` })
      .reply(201, { id: 55 })
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [{ id: 55, body: `${marker}\nQueued` }])
      .post(comments, { body: `${other}\nQueued` })
      .reply(201, { id: 56 })
      .get(`${R}/issues/8/comments`)
      .query({ per_page: 100 })
      .reply(200, [])
      .post(`${R}/issues/8/comments`, { body: `${marker}\nQueued` })
      .reply(201, { id: 57 });
    const h = host();
    await h.upsertPullRequestComment(repo, 7, comment('Queued'));
    await h.upsertPullRequestComment(repo, 7, { marker: other, body: `${other}\nQueued` });
    await h.upsertPullRequestComment(repo, 8, comment('Queued'));
    scope.done();
  });

  test('a remembered comment that was deleted is forgotten: it is looked for again, and created', async () => {
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [])
      .post(comments, { body: `${marker}\nQueued` })
      .reply(201, { id: 55 })
      .patch(`${R}/issues/comments/55`, { body: `${marker}\nTesting` })
      .reply(404, { message: 'Not Found' })
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [])
      .post(comments, { body: `${marker}\nTesting` })
      .reply(201, { id: 60 })
      .patch(`${R}/issues/comments/60`, { body: `${marker}\nMerged` })
      .reply(200, { id: 60 });
    const h = host();
    await h.upsertPullRequestComment(repo, 7, comment('Queued'));
    await h.upsertPullRequestComment(repo, 7, comment('Testing'));
    await h.upsertPullRequestComment(repo, 7, comment('Merged'));
    scope.done();
  });

  test('other errors propagate, and nothing is remembered', async () => {
    const scope = nock(API)
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [])
      .post(comments)
      .reply(503, { message: 'unavailable' })
      .get(comments)
      .query({ per_page: 100 })
      .reply(200, [{ id: 9, body: `${marker}\nQueued` }])
      .patch(`${R}/issues/comments/9`, { body: `${marker}\nQueued` })
      .reply(200, { id: 9 });
    const h = host();
    await expect(h.upsertPullRequestComment(repo, 7, comment('Queued'))).rejects.toMatchObject({ status: 503 });
    await h.upsertPullRequestComment(repo, 7, comment('Queued'));
    scope.done();
  });
});

describe('headContains', () => {
  test.each([
    ['ahead', true],
    ['identical', true],
    ['behind', false],
    ['diverged', false],
  ])('compare status %s -> %s', async (status, expected) => {
    const scope = nock(API).get(`${R}/compare/t1...h1`).query(true).reply(200, { status });
    await expect(host().headContains(repo, 'h1', 't1')).resolves.toBe(expected);
    scope.done();
  });

  test('404 is false', async () => {
    const scope = nock(API).get(`${R}/compare/t1...h1`).query(true).reply(404, { message: 'Not Found' });
    await expect(host().headContains(repo, 'h1', 't1')).resolves.toBe(false);
    scope.done();
  });
});

describe('InstallationClients', () => {
  function setup() {
    let now = 0;
    const installationIds: number[] = [];
    const clients = new InstallationClients({
      appOctokit: async () => new TestOctokit({ auth: 'app-jwt' }),
      installationOctokit: async (id) => {
        installationIds.push(id);
        return new TestOctokit({ auth: `token-${id}` });
      },
      ttlMs: 1_000,
      now: () => now,
    });
    return { clients, installationIds, advance: (ms: number) => (now += ms) };
  }

  test('looks the installation up once per repository, case-insensitively, until the ttl; one client per installation', async () => {
    const { clients, installationIds, advance } = setup();
    const scope = nock(API).get(`${R}/installation`).reply(200, { id: 42 });
    const first = await clients.forRepo(repo);
    expect(await clients.forRepo({ ...repo, owner: 'ACME' })).toBe(first);
    scope.done();
    expect(installationIds).toEqual([42]);

    advance(1_000);
    const again = nock(API).get(`${R}/installation`).reply(200, { id: 43 });
    await clients.forRepo(repo);
    again.done();
    expect(installationIds).toEqual([42, 43]);
  });

  test('a client that could not be created is asked for again next time', async () => {
    let calls = 0;
    const clients = new InstallationClients({
      appOctokit: async () => new TestOctokit({ auth: 'app-jwt' }),
      installationOctokit: async () => {
        if (++calls === 1) throw Object.assign(new Error('token refused'), { status: 502 });
        return new TestOctokit({ auth: 'token' });
      },
    });
    clients.remember(repo, 7);
    await expect(clients.forRepo(repo)).rejects.toMatchObject({ status: 502 });
    await expect(clients.forRepo(repo)).resolves.toBeDefined();
    expect(calls).toBe(2);
  });

  test('remember() primes the cache: no lookup', async () => {
    const { clients, installationIds } = setup();
    clients.remember(repo, 7);
    await clients.forRepo(repo);
    expect(installationIds).toEqual([7]);
    expect(nock.pendingMocks()).toEqual([]);
  });
});

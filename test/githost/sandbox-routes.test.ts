import express from 'express';
import request from 'supertest';
import { VirtualTime } from '../../src/engine/virtual-time.js';
import { sandboxRoutes } from '../../src/githost/sandbox/routes.js';
import { SandboxGitHost } from '../../src/githost/sandbox/sandbox-host.js';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };

function app() {
  const time = new VirtualTime();
  const sandbox = new SandboxGitHost({ clock: time, scheduler: time });
  const server = express();
  server.use('/sandbox', sandboxRoutes(sandbox));
  return { server, sandbox, time };
}

describe('sandbox routes', () => {
  it('opens a pull request, lists it, pushes to it, marks it bad and closes it', async () => {
    const { server, sandbox } = app();
    const opened = await request(server).post('/sandbox/pulls').send({ repo, title: 'Fix the widget', author: 'ada', ciMinutes: '12' });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ number: 1, title: 'Fix the widget', author: 'ada', baseBranch: 'main', state: 'open', bad: false, ciMinutes: 12, mergeability: 'MERGEABLE' });

    const listed = await request(server).get('/sandbox/pulls').query(repo);
    expect(listed.status).toBe(200);
    expect(listed.body.pulls.map((p: { number: number }) => p.number)).toEqual([1]);

    const pushed = await request(server).post('/sandbox/pulls/1/commits').send({ repo });
    expect(pushed.status).toBe(200);
    expect(pushed.body.headSha).not.toBe(opened.body.headSha);
    expect(sandbox.pullRequest(repo, 1)!.headSha).toBe(pushed.body.headSha);

    const marked = await request(server).post('/sandbox/pulls/1/mark').send({ repo, bad: true });
    expect(marked.body.bad).toBe(true);
    expect(sandbox.pullRequest(repo, 1)!.bad).toBe(true);

    const closed = await request(server).post('/sandbox/pulls/1/close').send({ repo });
    expect(closed.body.state).toBe('closed');
    const pushClosed = await request(server).post('/sandbox/pulls/1/commits').send({ repo });
    expect(pushClosed.status).toBe(409);

    const one = await request(server).get('/sandbox/pulls/1').query(repo);
    expect(one.body).toMatchObject({ number: 1, state: 'closed', comments: [] });

    // The comment mergeq keeps on the PR shows with it.
    await sandbox.upsertPullRequestComment(repo, 1, { marker: '<!-- mergeq:main -->', body: '<!-- mergeq:main -->\nCancelled' });
    const commented = await request(server).get('/sandbox/pulls').query(repo);
    expect(commented.body.pulls[0].comments).toEqual([{ body: '<!-- mergeq:main -->\nCancelled' }]);
  });

  it('lists the draft PRs opened from test branches', async () => {
    const { server, sandbox } = app();
    const pr = sandbox.openPullRequest(repo);
    const spec = { name: 'mergeq/main/r1', baseBranch: 'main', prs: [{ number: pr.number, sha: pr.headSha }] };
    await sandbox.createTestBranch(repo, { ...spec, draftPullRequest: { title: 'mergeq: test #1 on main', body: 'temporary' } });
    const listed = await request(server).get('/sandbox/test-branch-pulls').query(repo);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      pulls: [{ number: 2, title: 'mergeq: test #1 on main', body: 'temporary', head: 'mergeq/main/r1', base: 'main', draft: true, state: 'open' }],
    });
    expect((await request(server).get('/sandbox/test-branch-pulls')).status).toBe(400);
  });

  it('makes two pull requests conflict', async () => {
    const { server, sandbox } = app();
    await request(server).post('/sandbox/pulls').send({ repo });
    await request(server).post('/sandbox/pulls').send({ repo });
    const res = await request(server).post('/sandbox/conflicts').send({ repo, kind: 'textual', pulls: [1, 2] });
    expect(res.status).toBe(200);
    const a = sandbox.pullRequest(repo, 1)!;
    await sandbox.mergePullRequest(repo, 1, { expectedSha: a.headSha, method: 'squash' });
    const b = await request(server).get('/sandbox/pulls/2').query(repo);
    expect(b.body.mergeability).toBe('NOT_MERGEABLE');
  });

  it('answers bad input with problem+json, never a 500', async () => {
    const { server } = app();
    const missing = await request(server).post('/sandbox/pulls').send({ title: 'no repo' });
    expect(missing.status).toBe(400);
    expect(missing.type).toBe('application/problem+json');
    expect(JSON.parse(missing.text).errors.map((e: { path: string }) => e.path)).toContain('repo');

    const broken = await request(server).post('/sandbox/pulls').set('Content-Type', 'application/json').send('{"repo":');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).code).toBe('invalid_json');

    expect((await request(server).post('/sandbox/pulls/abc/close').send({ repo })).status).toBe(400);
    const unknown = await request(server).post('/sandbox/pulls/7/close').send({ repo });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).errors).toEqual([{ path: 'number', message: 'no such pull request' }]);
    expect(JSON.parse(broken.text).errors).toEqual([{ path: '(body)', message: 'is not valid JSON' }]);
    expect((await request(server).get('/sandbox/pulls')).status).toBe(400);
    expect((await request(server).post('/sandbox/conflicts').send({ repo, kind: 'textual', pulls: [1, 2] })).status).toBe(404);
  });

  it("gives a repository tests: its CI runs them; other repositories' CI is unchanged", async () => {
    const { server, sandbox } = app();
    const bad = await request(server).post('/sandbox/tests').send({ repo, steadyTests: 2, flakyTests: [{ name: 'flaky one', rate: 2 }] });
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(bad.text).errors).toEqual([{ path: 'flakyTests.0.rate', message: expect.any(String) }]);
    const twice = await request(server).post('/sandbox/tests').send({ repo, steadyTests: 2, flakyTests: [{ name: 'a', rate: 0 }, { name: 'a', rate: 0 }] });
    expect(twice.status).toBe(400);

    const set = await request(server).post('/sandbox/tests').send({ repo, steadyTests: 2, flakyTests: [{ name: 'flaky one', rate: 0, script: [['failed', 'failed']] }] });
    expect(set.status).toBe(200);
    const other = { ...repo, name: 'gadgets' };
    for (const r of [repo, other]) {
      const pr = sandbox.openPullRequest(r, { ciMinutes: 1 });
      await sandbox.createTestBranch(r, { name: `mergeq/main/t-${r.name}`, baseBranch: 'main', prs: [{ number: pr.number, sha: pr.headSha }] });
    }
    const [mine, theirs] = sandbox.ci.runs;
    expect(mine!.tests?.find((t) => t.name === 'flaky one')?.attempts).toEqual(['failed', 'failed']);
    expect(mine!.outcome).toBe('failure');
    expect(theirs!.tests).toBeNull();
  });
});

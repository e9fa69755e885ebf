import { VirtualTime } from '../../src/engine/virtual-time.js';
import type { StatusEvent } from '../../src/githost/sandbox/ci.js';
import { SandboxGitHost, SandboxOutageError } from '../../src/githost/sandbox/sandbox-host.js';

const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
const MIN = 60_000;

function setup(ci: ConstructorParameters<typeof SandboxGitHost>[0]['ci'] = {}, seed = 7) {
  const time = new VirtualTime();
  const sandbox = new SandboxGitHost({ clock: time, scheduler: time, seed, ci });
  const events: StatusEvent[] = [];
  sandbox.onStatus((e) => events.push(e));
  return { time, sandbox, events };
}

function branchSpec(name: string, prs: { number: number; headSha: string }[]) {
  return { name, baseBranch: 'main', prs: prs.map((p) => ({ number: p.number, sha: p.headSha })) };
}

describe('sandbox git host: pull requests', () => {
  it('opens mergeable pull requests with their own head sha', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo, { title: 'Add a widget', author: 'ada' });
    const b = sandbox.openPullRequest(repo);
    expect([a.number, b.number]).toEqual([1, 2]);
    expect(a.headSha).not.toEqual(b.headSha);
    expect(await sandbox.getPullRequest(repo, 1)).toEqual({
      number: 1,
      title: 'Add a widget',
      headSha: a.headSha,
      baseBranch: 'main',
      author: 'ada',
      state: 'open',
      draft: false,
      mergeability: 'MERGEABLE',
      mergeCommitSha: null,
    });
    expect(await sandbox.getPullRequest(repo, 99)).toBeNull();
    expect(await sandbox.getPullRequest({ ...repo, name: 'other' }, 1)).toBeNull();
  });

  it('pushing a commit changes the head; closing closes', async () => {
    const { sandbox } = setup();
    const pr = sandbox.openPullRequest(repo);
    const pushed = sandbox.pushCommit(repo, pr.number);
    expect(pushed.headSha).not.toEqual(pr.headSha);
    sandbox.closePullRequest(repo, pr.number);
    expect((await sandbox.getPullRequest(repo, pr.number))?.state).toBe('closed');
  });
});

describe('sandbox git host: merging', () => {
  it('advances the target branch, guarded by the expected head', async () => {
    const { sandbox } = setup();
    const pr = sandbox.openPullRequest(repo);
    const before = await sandbox.getBranchHead(repo, 'main');
    sandbox.pushCommit(repo, pr.number);
    const stale = await sandbox.mergePullRequest(repo, pr.number, { expectedSha: pr.headSha, method: 'squash' });
    expect(stale).toMatchObject({ ok: false, code: 'pr_updated' });
    expect(await sandbox.getBranchHead(repo, 'main')).toBe(before);

    const head = sandbox.pullRequest(repo, pr.number)!.headSha;
    const merged = await sandbox.mergePullRequest(repo, pr.number, { expectedSha: head, method: 'squash' });
    expect(merged.ok).toBe(true);
    const after = await sandbox.getBranchHead(repo, 'main');
    expect(after).not.toBe(before);
    expect(merged).toEqual({ ok: true, sha: after });
    expect(await sandbox.getPullRequest(repo, pr.number)).toMatchObject({ state: 'merged', mergeCommitSha: after });
    expect(sandbox.mergeCount(repo, pr.number)).toBe(1);

    const again = await sandbox.mergePullRequest(repo, pr.number, { expectedSha: head, method: 'squash' });
    expect(again.ok).toBe(false);
    expect(sandbox.mergeCount(repo, pr.number)).toBe(1);
    expect(sandbox.stats.mergeCallsOnMergedPrs).toBe(1);
  });

  it('the merge method changes the resulting sha only', async () => {
    const heads: Record<string, string | null> = {};
    for (const method of ['squash', 'rebase', 'squash'] as const) {
      const { sandbox } = setup();
      const pr = sandbox.openPullRequest(repo);
      await sandbox.mergePullRequest(repo, pr.number, { expectedSha: pr.headSha, method });
      const head = await sandbox.getBranchHead(repo, 'main');
      if (heads[method]) expect(head).toBe(heads[method]);
      heads[method] = head;
    }
    expect(heads.squash).not.toBe(heads.rebase);
  });

  it('refuses a pull request that textually conflicts with what was merged', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo);
    sandbox.addConflict(repo, 'textual', a.number, b.number);
    expect((await sandbox.getPullRequest(repo, b.number))?.mergeability).toBe('MERGEABLE');
    await sandbox.mergePullRequest(repo, a.number, { expectedSha: a.headSha, method: 'merge_commit' });
    expect((await sandbox.getPullRequest(repo, b.number))?.mergeability).toBe('NOT_MERGEABLE');
    const refused = await sandbox.mergePullRequest(repo, b.number, { expectedSha: b.headSha, method: 'merge_commit' });
    expect(refused).toMatchObject({ ok: false, code: 'merge_conflict' });
  });

  it('knows which target heads a PR head contains: the ones it was based on', async () => {
    const { sandbox } = setup();
    const early = sandbox.openPullRequest(repo);
    const initial = (await sandbox.getBranchHead(repo, 'main'))!;
    const landed = sandbox.openPullRequest(repo);
    await sandbox.mergePullRequest(repo, landed.number, { expectedSha: landed.headSha, method: 'squash' });
    const moved = (await sandbox.getBranchHead(repo, 'main'))!;
    const late = sandbox.openPullRequest(repo);
    expect(await sandbox.headContains(repo, early.headSha, initial)).toBe(true);
    expect(await sandbox.headContains(repo, early.headSha, moved)).toBe(false);
    expect(await sandbox.headContains(repo, late.headSha, moved)).toBe(true);
    expect(await sandbox.headContains(repo, late.headSha, initial)).toBe(true);
    // Updating the branch brings the PR up to date.
    const updated = sandbox.pushCommit(repo, early.number);
    expect(await sandbox.headContains(repo, updated.headSha, moved)).toBe(true);
  });

  it('refuses a closed pull request', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    sandbox.closePullRequest(repo, a.number);
    expect(await sandbox.mergePullRequest(repo, a.number, { expectedSha: a.headSha, method: 'squash' })).toMatchObject({
      ok: false,
      code: 'merge_conflict',
    });
  });
});

describe('sandbox git host: test branches and CI', () => {
  it('starts CI on a new test branch and reports its statuses after the run duration', async () => {
    const { time, sandbox, events } = setup({ duration: { kind: 'fixed', minutes: 20 }, contexts: ['build', 'lint'] });
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo);
    const created = await sandbox.createTestBranch(repo, branchSpec('mergeq/main/run-1', [a, b]));
    if (!created.ok) throw new Error('expected a branch');
    expect(created.baseSha).toBe(await sandbox.getBranchHead(repo, 'main'));
    expect(await sandbox.readStatuses(repo, created.sha)).toEqual([
      expect.objectContaining({ context: 'build', state: 'pending' }),
      expect.objectContaining({ context: 'lint', state: 'pending' }),
    ]);
    await time.advanceBy(19 * MIN);
    expect(events).toHaveLength(0);
    await time.advanceBy(1 * MIN);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ sha: created.sha, branch: 'mergeq/main/run-1' });
    expect(events[0]!.checks.map((c) => [c.context, c.state])).toEqual([
      ['build', 'success'],
      ['lint', 'success'],
    ]);
    expect((await sandbox.readStatuses(repo, created.sha)).map((c) => c.state)).toEqual(['success', 'success']);
    expect(await sandbox.requiredStatuses(repo, 'main')).toEqual(['build', 'lint']);
  });

  it('fails every run that contains a bad pull request', async () => {
    const { time, sandbox, events } = setup();
    const good = sandbox.openPullRequest(repo);
    const bad = sandbox.openPullRequest(repo, { bad: true });
    await sandbox.createTestBranch(repo, branchSpec('t/1', [good]));
    await sandbox.createTestBranch(repo, branchSpec('t/2', [good, bad]));
    await time.advanceBy(60 * MIN);
    expect(events.map((e) => [e.branch, e.checks[0]!.state])).toEqual([
      ['t/1', 'success'],
      ['t/2', 'failure'],
    ]);
  });

  it('fails a run holding both sides of a logical conflict, and neither alone', async () => {
    const { time, sandbox, events } = setup();
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo);
    sandbox.addConflict(repo, 'logical', a.number, b.number);
    await sandbox.createTestBranch(repo, branchSpec('t/a', [a]));
    await sandbox.createTestBranch(repo, branchSpec('t/b', [b]));
    await sandbox.createTestBranch(repo, branchSpec('t/ab', [a, b]));
    await time.advanceBy(60 * MIN);
    expect(Object.fromEntries(events.map((e) => [e.branch, e.checks[0]!.state]))).toEqual({ 't/a': 'success', 't/b': 'success', 't/ab': 'failure' });
    // Once one side is on the target branch, a run of the other one fails too.
    await sandbox.mergePullRequest(repo, a.number, { expectedSha: a.headSha, method: 'squash' });
    await sandbox.createTestBranch(repo, branchSpec('t/b2', [b]));
    await time.advanceBy(60 * MIN);
    expect(events.at(-1)).toMatchObject({ branch: 't/b2', checks: [expect.objectContaining({ state: 'failure' })] });
  });

  it('answers a textual conflict instead of building the branch', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo);
    const c = sandbox.openPullRequest(repo);
    sandbox.addConflict(repo, 'textual', a.number, c.number);
    expect(await sandbox.createTestBranch(repo, branchSpec('t/1', [a, b, c]))).toEqual({ ok: false, conflictPrNumber: c.number });
    expect(sandbox.liveTestBranches(repo)).toEqual([]);
    expect(sandbox.ci.runs).toHaveLength(0);
  });

  it('creating the same branch twice answers the first result and starts CI once', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    const first = await sandbox.createTestBranch(repo, branchSpec('t/1', [a]));
    const second = await sandbox.createTestBranch(repo, branchSpec('t/1', [a]));
    expect(second).toEqual({ ...first, adopted: true });
    expect(sandbox.ci.runs).toHaveLength(1);
    // Identical content on another branch is another commit: its statuses are its own.
    const other = await sandbox.createTestBranch(repo, branchSpec('t/2', [a]));
    expect(other.ok && first.ok && other.sha !== first.sha).toBe(true);
  });

  it('deleting a test branch stops its CI run; deleting a missing branch is fine', async () => {
    const { time, sandbox, events } = setup();
    const a = sandbox.openPullRequest(repo);
    await sandbox.createTestBranch(repo, branchSpec('t/1', [a]));
    await sandbox.deleteBranch(repo, 't/1');
    await sandbox.deleteBranch(repo, 't/1');
    await time.advanceBy(60 * MIN);
    expect(events).toHaveLength(0);
    expect(sandbox.ci.runs[0]!.state).toBe('aborted');
    expect(sandbox.liveTestBranches(repo)).toEqual([]);
  });

  it('opens a draft PR from a test branch once, numbered with the other PRs, and closes it with the branch', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    const draftPullRequest = { title: 'mergeq: test #1 on main', body: 'temporary' };
    const spec = { ...branchSpec('t/1', [a]), draftPullRequest };
    const first = await sandbox.createTestBranch(repo, spec);
    expect(await sandbox.createTestBranch(repo, spec)).toEqual({ ...first, adopted: true }); // repeated after a crash: found, not opened again
    expect(sandbox.testBranchPullRequests(repo)).toEqual([{ number: 2, title: 'mergeq: test #1 on main', body: 'temporary', head: 't/1', base: 'main', draft: true, state: 'open' }]);
    expect(sandbox.openPullRequest(repo).number).toBe(3);
    expect(sandbox.listPullRequests(repo).map((p) => p.number)).toEqual([1, 3]);

    await sandbox.createTestBranch(repo, branchSpec('t/2', [a])); // not asked for: none
    await sandbox.deleteBranch(repo, 't/1');
    expect(sandbox.testBranchPullRequests(repo).map((p) => [p.head, p.state])).toEqual([['t/1', 'closed']]);
  });

  it('answers a failure to open the draft PR with the built branch; a conflict opens none', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo);
    sandbox.addConflict(repo, 'textual', a.number, b.number);
    const draftPullRequest = { title: 't', body: 'b' };
    sandbox.failNext('openDraftPullRequest');
    const built = await sandbox.createTestBranch(repo, { ...branchSpec('t/1', [a]), draftPullRequest });
    expect(built).toMatchObject({ ok: true, draftPullRequestError: 'sandbox git host: injected outage in openDraftPullRequest' });
    expect(sandbox.liveTestBranches(repo)).toEqual(['t/1']);
    expect(await sandbox.createTestBranch(repo, { ...branchSpec('t/2', [a, b]), draftPullRequest })).toEqual({ ok: false, conflictPrNumber: b.number });
    expect(sandbox.testBranchPullRequests(repo)).toEqual([]);
  });

  it('uses the longest fixed CI time of the pull requests in a run', async () => {
    const { time, sandbox, events } = setup({ duration: { kind: 'fixed', minutes: 5 } });
    const a = sandbox.openPullRequest(repo, { ciMinutes: 30 });
    const b = sandbox.openPullRequest(repo, { ciMinutes: 45 });
    await sandbox.createTestBranch(repo, branchSpec('t/1', [a, b]));
    await time.advanceBy(44 * MIN);
    expect(events).toHaveLength(0);
    await time.advanceBy(1 * MIN);
    expect(events).toHaveLength(1);
  });

  it('flakes with the configured probability, the same way for the same seed', async () => {
    const outcomes = async (seed: number) => {
      const { time, sandbox, events } = setup({ flakeRate: 0.3 }, seed);
      const a = sandbox.openPullRequest(repo);
      for (let i = 0; i < 400; i++) await sandbox.createTestBranch(repo, branchSpec(`t/${i}`, [a]));
      await time.advanceBy(60 * MIN);
      return events.map((e) => e.checks[0]!.state);
    };
    const first = await outcomes(11);
    expect(await outcomes(11)).toEqual(first);
    expect(await outcomes(12)).not.toEqual(first);
    const failures = first.filter((s) => s === 'failure').length;
    expect(failures).toBeGreaterThan(400 * 0.22);
    expect(failures).toBeLessThan(400 * 0.38);
  });

  it('draws log-normal durations with the configured median and p90', async () => {
    const { sandbox } = setup({ duration: { kind: 'lognormal', medianMinutes: 30, p90Minutes: 60 }, hold: true });
    const a = sandbox.openPullRequest(repo);
    for (let i = 0; i < 3000; i++) await sandbox.createTestBranch(repo, branchSpec(`t/${i}`, [a]));
    const minutes = sandbox.ci.runs.map((r) => r.minutes).sort((x, y) => x - y);
    expect(minutes[1500]).toBeGreaterThan(27);
    expect(minutes[1500]).toBeLessThan(33);
    expect(minutes[2700]).toBeGreaterThan(54);
    expect(minutes[2700]).toBeLessThan(66);
  });

  it('with failureTiming uniform, failing runs report at a uniform share of their duration, passing runs at its end', async () => {
    const lognormal = { kind: 'lognormal' as const, medianMinutes: 30, p90Minutes: 60 };
    const draw = (failureTiming: 'end' | 'uniform') => {
      const { sandbox } = setup({ duration: lognormal, flakeRate: 0.5, hold: true, failureTiming });
      const a = sandbox.openPullRequest(repo);
      return Promise.all(Array.from({ length: 2000 }, (_, i) => sandbox.createTestBranch(repo, branchSpec(`t/${i}`, [a])))).then(() => sandbox.ci.runs);
    };
    const end = await draw('end');
    const uniform = await draw('uniform');
    // The same verdicts and the same passing durations: only failing runs end earlier.
    expect(uniform.map((r) => r.outcome)).toEqual(end.map((r) => r.outcome));
    const shares: number[] = [];
    uniform.forEach((r, i) => {
      if (r.outcome === 'success') expect(r.minutes).toBe(end[i]!.minutes);
      else shares.push(r.minutes / end[i]!.minutes);
    });
    expect(shares.length).toBeGreaterThan(800);
    expect(Math.max(...shares)).toBeLessThan(1);
    const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
  });

  it('in hold mode, reports runs only when released, in the order the test chooses', async () => {
    const { time, sandbox, events } = setup({ hold: true });
    const a = sandbox.openPullRequest(repo);
    const b = sandbox.openPullRequest(repo, { bad: true });
    await sandbox.createTestBranch(repo, branchSpec('t/a', [a]));
    await sandbox.createTestBranch(repo, branchSpec('t/ab', [a, b]));
    await time.advanceBy(24 * 60 * MIN);
    expect(events).toHaveLength(0);
    const [runA, runAB] = sandbox.ci.held();
    sandbox.ci.release(runAB!);
    sandbox.ci.release(runA!, 'failure');
    expect(events.map((e) => [e.branch, e.checks[0]!.state])).toEqual([
      ['t/ab', 'failure'],
      ['t/a', 'failure'],
    ]);
    expect(() => sandbox.ci.release(runA!)).toThrow(/not held/);
  });

  it('injects transient outages on request', async () => {
    const { sandbox } = setup();
    sandbox.openPullRequest(repo);
    sandbox.failNext('getPullRequest', 2);
    await expect(sandbox.getPullRequest(repo, 1)).rejects.toBeInstanceOf(SandboxOutageError);
    await expect(sandbox.getPullRequest(repo, 1)).rejects.toMatchObject({ status: 503, transient: true });
    await expect(sandbox.getPullRequest(repo, 1)).resolves.toMatchObject({ number: 1 });
  });

  it('keeps one comment per pull request and marker, edited in place', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    await sandbox.upsertPullRequestComment(repo, a.number, { marker: '<!-- mergeq:main -->', body: '<!-- mergeq:main -->\nQueued' });
    await sandbox.upsertPullRequestComment(repo, a.number, { marker: '<!-- mergeq:release -->', body: '<!-- mergeq:release -->\nTesting' });
    await sandbox.upsertPullRequestComment(repo, a.number, { marker: '<!-- mergeq:main -->', body: '<!-- mergeq:main -->\nMerged' });
    expect(sandbox.pullRequestComments(repo, a.number)).toEqual([
      { marker: '<!-- mergeq:main -->', body: '<!-- mergeq:main -->\nMerged', edits: 1 },
      { marker: '<!-- mergeq:release -->', body: '<!-- mergeq:release -->\nTesting', edits: 0 },
    ]);
    expect(sandbox.pullRequestComments(repo, 99)).toEqual([]);
    await expect(sandbox.upsertPullRequestComment(repo, 99, { marker: 'm', body: 'm' })).rejects.toMatchObject({ status: 404 });
  });

  it('records the commit statuses reported on a sha', async () => {
    const { sandbox } = setup();
    const a = sandbox.openPullRequest(repo);
    await sandbox.reportStatus(repo, a.headSha, { context: 'mergeq (main)', state: 'pending', description: 'Queued #1', targetUrl: null });
    expect(sandbox.reportedStatuses(repo, a.headSha)).toEqual([{ context: 'mergeq (main)', state: 'pending', description: 'Queued #1', targetUrl: null }]);
  });
});

import type { CiRun } from '../../src/githost/sandbox/ci.js';
import { harness, repo, type Harness } from './harness.js';

/** The held CI run whose test branch holds exactly these PRs (in this order). */
function heldRun(h: Harness, prs: number[]): CiRun {
  const run = h.sandbox.ci.held().find((r) => r.prNumbers.join(',') === prs.join(','));
  if (!run) throw new Error(`no held run of [${prs}]; held: ${h.sandbox.ci.held().map((r) => `[${r.prNumbers}]`).join(' ')}`);
  return run;
}

async function release(h: Harness, prs: number[], outcome: 'success' | 'failure') {
  h.sandbox.ci.release(heldRun(h, prs), outcome);
  await h.settle();
}

describe('engine with a fake executor: CI results arrive in the order the test chooses', () => {
  it('a later run finishing first waits for the one ahead; then both merge in queue order', async () => {
    const h = await harness({ settings: { concurrency: 2 }, ci: { hold: true } });
    const a = await h.submit();
    const b = await h.submit();
    await h.settle();
    expect(h.sandbox.ci.held().map((r) => r.prNumbers)).toEqual([[a], [a, b]]);

    await release(h, [a, b], 'success');
    expect(await h.states(a, b)).toEqual(['TESTING', 'TESTS_PASSED']);
    expect(h.mergeOrder()).toEqual([]);

    await release(h, [a], 'success');
    expect(await h.states(a, b)).toEqual(['MERGED', 'MERGED']);
    expect(h.mergeOrder()).toEqual([a, b]);
  });

  it('with canOptimisticallyMerge, a passing run behind proves the PR ahead: both merge at once', async () => {
    const h = await harness({ settings: { concurrency: 2, canOptimisticallyMerge: true }, ci: { hold: true } });
    const a = await h.submit();
    const b = await h.submit();
    await h.settle();
    await release(h, [a, b], 'success');
    expect(await h.states(a, b)).toEqual(['MERGED', 'MERGED']);
    expect(h.mergeOrder()).toEqual([a, b]);
    // a's own run is no longer needed: cancelled, its branch deleted.
    expect(h.sandbox.liveTestBranches(repo)).toEqual([]);
  });

  it('a failure ahead drops the runs that contain it; the PR behind is retested without it', async () => {
    const h = await harness({ settings: { concurrency: 2, flakeRetries: 0 }, ci: { hold: true } });
    const a = await h.submit();
    const b = await h.submit();
    await h.settle();
    await release(h, [a], 'failure');
    expect((await h.entry(a)).state).toBe('FAILED');
    // b's run on top of a was cancelled and its CI stopped; a new one holds b alone.
    expect(h.sandbox.ci.runs.find((r) => r.prNumbers.join(',') === `${a},${b}`)?.state).toBe('aborted');
    await release(h, [b], 'success');
    expect(await h.states(a, b)).toEqual(['FAILED', 'MERGED']);
    expect(h.mergeOrder()).toEqual([b]);
    const history = (await h.entry(b)).history.map((t) => `${t.state}:${t.reason.code}`);
    expect(history).toContain('PENDING:ahead_failed');
  });
});

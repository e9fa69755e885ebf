import { Harness } from './harness.js';
import type { PullRequestInfo } from '../../src/githost/githost.js';

function pr(n: number, patch: Partial<PullRequestInfo> = {}): PullRequestInfo {
  return {
    number: n,
    title: `PR ${n}`,
    headSha: `pr${n}-a`,
    baseBranch: 'main',
    author: 'dev',
    state: 'open',
    draft: false,
    mergeability: 'MERGEABLE',
    mergeCommitSha: null,
    ...patch,
  };
}

describe('readiness: NOT_READY -> PENDING', () => {
  test('a PR the git host does not call mergeable waits as NOT_READY with no position', () => {
    const h = new Harness();
    h.submit(1, { readiness: { gitHubMergeability: 'UNSPECIFIED' } });
    expect(h.state(1)).toBe('NOT_READY');
    expect(h.order()).toEqual([]);
    expect(h.entry(1).readyAt).toBeNull();
  });

  test('it becomes PENDING, with readyAt, once the git host says it is mergeable', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(9);
    h.submit(1, { readiness: { gitHubMergeability: 'IN_PROGRESS' } });
    h.advance(3);
    h.pullRequest(pr(1));
    expect(h.state(1)).toBe('PENDING');
    expect(h.entry(1).readyAt).toBe(h.now.toISOString());
    expect(h.order()).toEqual([9, 1]);
  });

  test.each([
    ['a draft', { draft: true }],
    ['another base branch', { baseBranch: 'release' }],
    ['a conflict', { mergeability: 'NOT_MERGEABLE' as const }],
  ])('%s keeps it NOT_READY', (_label, patch) => {
    const h = new Harness();
    h.submit(1, { readiness: { gitHubMergeability: 'UNSPECIFIED' } });
    h.pullRequest(pr(1, patch));
    expect(h.state(1)).toBe('NOT_READY');
  });

  test('parallel mode also needs impacted targets for the head SHA', () => {
    const h = new Harness({ mode: 'parallel' });
    h.submit(1);
    expect(h.state(1)).toBe('NOT_READY');
    expect(h.entry(1).reason?.code).toBe('submitted');
  });

  test('a PENDING PR that definitely loses readiness before testing goes back to NOT_READY', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.submit(2);
    h.pullRequest(pr(2, { headSha: 'pr2-a', mergeability: 'NOT_MERGEABLE' }));
    expect(h.state(2)).toBe('NOT_READY');
    expect(h.entry(2).reason?.code).toBe('not_ready');
    expect(h.order()).toEqual([1]);
  });

  test('a mergeability being recomputed does not cost a PENDING PR its place', () => {
    const h = new Harness({ concurrency: 1 });
    h.submit(1);
    h.submit(2);
    h.pullRequest(pr(2, { mergeability: 'IN_PROGRESS' }));
    expect(h.state(2)).toBe('PENDING');
    expect(h.order()).toEqual([1, 2]);
  });
});

describe('PR events end queued entries with a reason', () => {
  test.each([
    ['new commits', { headSha: 'pr2-b' }, 'pr_updated'],
    ['closed', { state: 'closed' as const }, 'pr_closed'],
    ['converted to draft', { draft: true }, 'converted_to_draft'],
    ['base changed', { baseBranch: 'release' }, 'base_changed'],
  ])('%s -> CANCELLED, and the units behind restart without it', (_label, patch, code) => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.pullRequest(pr(2, patch));
    expect(h.state(2)).toBe('CANCELLED');
    expect(h.entry(2).reason?.code).toBe(code);
    expect(h.prsOf(h.runOf(3))).toEqual([1, 3]);
  });

  test('merged outside the queue -> MERGED merged_elsewhere; results that did not test it restart', () => {
    const h = new Harness({ concurrency: 3 });
    h.submit(1);
    h.submit(2);
    h.submit(3);
    h.pullRequest(pr(2, { state: 'merged', mergeCommitSha: 'abc' }));
    expect(h.state(2)).toBe('MERGED');
    expect(h.entry(2).reason?.code).toBe('merged_elsewhere');
    expect(h.prsOf(h.runOf(1))).toEqual([1]);
    expect(h.entry(1).history.map((t) => t.reason.code)).toContain('ahead_merged_elsewhere');
    // 3's run contained 2: still a test of what would land.
    expect(h.entry(3).history.map((t) => t.reason.code)).not.toContain('ahead_merged_elsewhere');
  });

  test('a PR that no longer exists is cancelled', () => {
    const h = new Harness();
    h.submit(4);
    h.pullRequest(null, 4);
    expect(h.state(4)).toBe('CANCELLED');
    expect(h.entry(4).reason?.code).toBe('pr_closed');
  });

  test('a NOT_READY entry whose head moves after submission is cancelled (pr_updated): the approved head is the one submitted', () => {
    const h = new Harness();
    h.submit(1, { readiness: { gitHubMergeability: 'UNSPECIFIED' } });
    h.pullRequest(pr(1, { headSha: 'pr1-b', mergeability: 'MERGEABLE' }));
    expect(h.state(1)).toBe('CANCELLED');
    expect(h.entry(1).reason?.code).toBe('pr_updated');
    expect(h.entry(1).prSha).toBe('pr1-a');
  });

  test('an entry submitted while the git host could not tell its head takes the first head read', () => {
    const h = new Harness();
    h.submit(1, { sha: '', readiness: { gitHubMergeability: 'UNSPECIFIED' } });
    h.pullRequest(pr(1, { headSha: 'pr1-b', mergeability: 'UNSPECIFIED', title: 'better title' }));
    expect(h.state(1)).toBe('NOT_READY');
    expect(h.entry(1).prSha).toBe('pr1-b');
    expect(h.entry(1).prTitle).toBe('better title');
  });
});

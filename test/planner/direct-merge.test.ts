import { Harness } from './harness.js';

describe('rule 10: directMergeMode always', () => {
  const upToDate = (h: Harness, sha: string) => ({ sha, readiness: { containsTargetSha: h.q.targetSha, ownChecksPassedSha: sha } });

  test('a PR at the head, up to date with the target head and with its own checks passed, merges without a run', () => {
    const h = new Harness({ directMergeMode: 'always' });
    h.submit(1, upToDate(h, 'pr1-a'));
    expect(h.merges).toEqual([{ entryId: h.entry(1).id, prNumber: 1, runId: null, landedBefore: [] }]);
    expect(h.entry(1).reason?.code).toBe('direct_merge');
    expect(h.q.runs).toEqual([]);
  });

  test('not when something is ahead of it', () => {
    const h = new Harness({ directMergeMode: 'always', concurrency: 2 });
    h.submit(1);
    h.submit(2, upToDate(h, 'pr2-a'));
    expect(h.state(2)).toBe('TESTING');
    expect(h.merges).toEqual([]);
  });

  test('not when its checks passed on another SHA or the target moved', () => {
    const h = new Harness({ directMergeMode: 'always' });
    h.submit(1, { sha: 'pr1-a', readiness: { containsTargetSha: h.q.targetSha, ownChecksPassedSha: 'pr1-old' } });
    expect(h.state(1)).toBe('TESTING');
    const g = new Harness({ directMergeMode: 'always' });
    g.submit(1, { sha: 'pr1-a', readiness: { containsTargetSha: 'main-old', ownChecksPassedSha: 'pr1-a' } });
    expect(g.state(1)).toBe('TESTING');
  });

  test('off by default', () => {
    const h = new Harness();
    h.submit(1, upToDate(h, 'pr1-a'));
    expect(h.state(1)).toBe('TESTING');
  });
});

import {
  checkRunState,
  commitStatusState,
  toGitHubMergeMethod,
  toMergeability,
  toPullRequestInfo,
  truncateDescription,
  type GitHubPull,
} from '../../src/githost/github/github-mapping.js';

describe('checkRunState', () => {
  test.each([
    ['queued', null, 'pending'],
    ['in_progress', null, 'pending'],
    ['waiting', null, 'pending'],
    ['completed', 'success', 'success'],
    ['completed', 'neutral', 'success'],
    ['completed', 'skipped', 'success'],
    ['completed', 'failure', 'failure'],
    ['completed', 'timed_out', 'failure'],
    ['completed', 'action_required', 'failure'],
    ['completed', 'startup_failure', 'failure'],
    ['completed', 'stale', 'failure'],
    ['completed', 'something_new', 'failure'],
    ['completed', 'cancelled', 'error'],
  ] as const)('%s / %s -> %s', (status, conclusion, expected) => {
    expect(checkRunState(status, conclusion)).toBe(expected);
  });
});

describe('commitStatusState', () => {
  test.each([
    ['pending', 'pending'],
    ['success', 'success'],
    ['failure', 'failure'],
    ['error', 'error'],
    ['weird', 'pending'],
  ])('%s -> %s', (state, expected) => {
    expect(commitStatusState(state)).toBe(expected);
  });
});

describe('toMergeability', () => {
  test.each([
    [true, 'clean', 'MERGEABLE'],
    [true, 'unstable', 'MERGEABLE'],
    [true, 'behind', 'MERGEABLE'],
    [null, 'behind', 'MERGEABLE'],
    [true, 'blocked', 'NOT_MERGEABLE'],
    [false, 'dirty', 'NOT_MERGEABLE'],
    [null, 'dirty', 'NOT_MERGEABLE'],
    [false, 'unknown', 'NOT_MERGEABLE'],
    [null, 'unknown', 'IN_PROGRESS'],
  ] as const)('mergeable %s, state %s -> %s', (mergeable, state, expected) => {
    expect(toMergeability(mergeable, state)).toBe(expected);
  });
});

describe('toPullRequestInfo', () => {
  const pull: GitHubPull = {
    number: 3,
    title: 'Fix',
    state: 'open',
    merged: false,
    merge_commit_sha: 'test-merge-sha',
    draft: true,
    mergeable: null,
    mergeable_state: 'unknown',
    head: { sha: 'h3' },
    base: { ref: 'release' },
    user: { login: 'dev' },
  };

  test('an open draft whose mergeability GitHub is still computing', () => {
    expect(toPullRequestInfo(pull)).toEqual({
      number: 3,
      title: 'Fix',
      headSha: 'h3',
      baseBranch: 'release',
      author: 'dev',
      state: 'open',
      draft: true,
      mergeability: 'IN_PROGRESS',
      mergeCommitSha: null,
    });
  });

  test('a webhook payload without the mergeability fields is still being computed', () => {
    const { mergeable: _m, mergeable_state: _s, merged: _d, ...payload } = pull;
    expect(toPullRequestInfo(payload)).toMatchObject({ state: 'open', mergeability: 'IN_PROGRESS', mergeCommitSha: null });
  });

  test.each([
    [{ state: 'closed', merged: false }, 'closed', null],
    [{ state: 'closed', merged: true, merge_commit_sha: 'm3' }, 'merged', 'm3'],
  ] as const)('%o -> %s', (patch, state, mergeCommitSha) => {
    expect(toPullRequestInfo({ ...pull, ...patch })).toMatchObject({ state, mergeCommitSha, mergeability: 'UNSPECIFIED' });
  });
});

test('merge methods', () => {
  expect(toGitHubMergeMethod('merge_commit')).toBe('merge');
  expect(toGitHubMergeMethod('squash')).toBe('squash');
  expect(toGitHubMergeMethod('rebase')).toBe('rebase');
});

test('descriptions are cut to 140 characters', () => {
  expect(truncateDescription('short')).toBe('short');
  expect(truncateDescription('y'.repeat(140))).toBe('y'.repeat(140));
  const cut = truncateDescription('z'.repeat(141));
  expect([...cut]).toHaveLength(140);
  expect(cut.endsWith('…')).toBe(true);
});

import { detectCi, parseRepoFlag, repoFromGitUrl } from '../../../src/cli/test-wrapper/ci-environment.js';

describe('CI environments', () => {
  test('GitHub Actions, a pull request', () => {
    expect(
      detectCi({ GITHUB_ACTIONS: 'true', GITHUB_REPOSITORY: 'acme/shop', GITHUB_SERVER_URL: 'https://github.com', GITHUB_SHA: 'abc', GITHUB_REF: 'refs/pull/12/merge', GITHUB_HEAD_REF: 'feature', GITHUB_REF_NAME: '12/merge', GITHUB_JOB: 'test' }),
    ).toEqual({ repo: { host: 'github.com', owner: 'acme', name: 'shop' }, commitSha: 'abc', branch: 'feature', prNumber: 12, jobName: 'test' });
  });

  test('Buildkite', () => {
    expect(detectCi({ BUILDKITE: 'true', BUILDKITE_REPO: 'git@github.com:acme/shop.git', BUILDKITE_COMMIT: 'abc', BUILDKITE_BRANCH: 'main', BUILDKITE_PULL_REQUEST: 'false', BUILDKITE_LABEL: ':jest: unit' })).toEqual({
      repo: { host: 'github.com', owner: 'acme', name: 'shop' },
      commitSha: 'abc',
      branch: 'main',
      prNumber: null,
      jobName: ':jest: unit',
    });
  });

  test('CircleCI', () => {
    expect(
      detectCi({ CIRCLECI: 'true', CIRCLE_PROJECT_USERNAME: 'acme', CIRCLE_PROJECT_REPONAME: 'shop', CIRCLE_REPOSITORY_URL: 'git@github.com:acme/shop.git', CIRCLE_SHA1: 'abc', CIRCLE_BRANCH: 'feature', CIRCLE_PULL_REQUEST: 'https://github.com/acme/shop/pull/7', CIRCLE_JOB: 'test' }),
    ).toEqual({ repo: { host: 'github.com', owner: 'acme', name: 'shop' }, commitSha: 'abc', branch: 'feature', prNumber: 7, jobName: 'test' });
  });

  test('GitLab CI, a project in a subgroup', () => {
    expect(detectCi({ GITLAB_CI: 'true', CI_SERVER_HOST: 'gitlab.example.com', CI_PROJECT_PATH: 'acme/web/shop', CI_COMMIT_SHA: 'abc', CI_COMMIT_REF_NAME: 'main', CI_JOB_NAME: 'test' })).toEqual({
      repo: { host: 'gitlab.example.com', owner: 'acme/web', name: 'shop' },
      commitSha: 'abc',
      branch: 'main',
      prNumber: null,
      jobName: 'test',
    });
  });

  test('no CI: nothing known', () => {
    expect(detectCi({})).toEqual({ repo: null, commitSha: null, branch: null, prNumber: null, jobName: null });
  });

  test('--repo and git URLs', () => {
    expect(parseRepoFlag('github.com/acme/shop')).toEqual({ host: 'github.com', owner: 'acme', name: 'shop' });
    expect(parseRepoFlag('acme/shop')).toBeNull();
    expect(repoFromGitUrl('https://github.com/acme/shop.git')).toEqual({ host: 'github.com', owner: 'acme', name: 'shop' });
  });
});

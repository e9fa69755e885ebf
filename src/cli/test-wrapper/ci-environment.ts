import type { RepoRef } from '../../domain/repo.js';

/** What the wrapper learns from the CI's environment; flags override each field. */
export interface CiContext {
  repo: RepoRef | null;
  commitSha: string | null;
  branch: string | null;
  prNumber: number | null;
  jobName: string | null;
}

type Env = Record<string, string | undefined>;

/** GitHub Actions, Buildkite, CircleCI and GitLab, by their documented variables. */
export function detectCi(env: Env): CiContext {
  if (env.GITHUB_ACTIONS === 'true' || env.GITHUB_REPOSITORY) {
    const host = env.GITHUB_SERVER_URL ? hostOf(env.GITHUB_SERVER_URL) : 'github.com';
    const pr = /^refs\/pull\/(\d+)\//.exec(env.GITHUB_REF ?? '');
    return {
      repo: env.GITHUB_REPOSITORY ? repoFromPath(host, env.GITHUB_REPOSITORY) : null,
      commitSha: env.GITHUB_SHA ?? null,
      branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || null,
      prNumber: pr ? Number(pr[1]) : null,
      jobName: env.GITHUB_JOB ?? null,
    };
  }
  if (env.BUILDKITE === 'true' || env.BUILDKITE_COMMIT) {
    return {
      repo: env.BUILDKITE_REPO ? repoFromGitUrl(env.BUILDKITE_REPO) : null,
      commitSha: env.BUILDKITE_COMMIT ?? null,
      branch: env.BUILDKITE_BRANCH ?? null,
      prNumber: positiveInt(env.BUILDKITE_PULL_REQUEST),
      jobName: env.BUILDKITE_LABEL ?? env.BUILDKITE_STEP_KEY ?? null,
    };
  }
  if (env.CIRCLECI === 'true' || env.CIRCLE_SHA1) {
    const host = env.CIRCLE_REPOSITORY_URL ? (repoFromGitUrl(env.CIRCLE_REPOSITORY_URL)?.host ?? 'github.com') : 'github.com';
    return {
      repo: env.CIRCLE_PROJECT_USERNAME && env.CIRCLE_PROJECT_REPONAME ? { host, owner: env.CIRCLE_PROJECT_USERNAME, name: env.CIRCLE_PROJECT_REPONAME } : null,
      commitSha: env.CIRCLE_SHA1 ?? null,
      branch: env.CIRCLE_BRANCH ?? null,
      prNumber: positiveInt(env.CIRCLE_PR_NUMBER ?? /\/pull\/(\d+)$/.exec(env.CIRCLE_PULL_REQUEST ?? '')?.[1]),
      jobName: env.CIRCLE_JOB ?? null,
    };
  }
  if (env.GITLAB_CI === 'true' || env.CI_COMMIT_SHA) {
    return {
      repo: env.CI_PROJECT_PATH ? repoFromPath(env.CI_SERVER_HOST ?? 'gitlab.com', env.CI_PROJECT_PATH) : null,
      commitSha: env.CI_COMMIT_SHA ?? null,
      branch: env.CI_COMMIT_BRANCH ?? env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME ?? env.CI_COMMIT_REF_NAME ?? null,
      prNumber: positiveInt(env.CI_MERGE_REQUEST_IID),
      jobName: env.CI_JOB_NAME ?? null,
    };
  }
  return { repo: null, commitSha: null, branch: null, prNumber: null, jobName: null };
}

/** `host/owner/name` (the --repo flag); GitLab subgroups keep the middle in the owner. */
export function parseRepoFlag(value: string): RepoRef | null {
  const parts = value.split('/').filter(Boolean);
  if (parts.length < 3) return null;
  return { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! };
}

function repoFromPath(host: string, path: string): RepoRef | null {
  const parts = path.split('/').filter(Boolean);
  if (parts.length < 2) return null;
  return { host, owner: parts.slice(0, -1).join('/'), name: parts[parts.length - 1]!.replace(/\.git$/, '') };
}

/** git@github.com:acme/widgets.git, https://github.com/acme/widgets.git, ssh://git@host/acme/widgets */
export function repoFromGitUrl(url: string): RepoRef | null {
  const scp = /^[^@/]+@([^:/]+):(.+)$/.exec(url);
  if (scp) return repoFromPath(scp[1]!, scp[2]!);
  try {
    const u = new URL(url);
    return repoFromPath(u.hostname, u.pathname);
  } catch {
    return null;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'github.com';
  }
}

function positiveInt(value: string | undefined): number | null {
  return value && /^\d+$/.test(value) && Number(value) > 0 ? Number(value) : null;
}

import type { RepoRef } from '../domain/repo.js';
import { REPO_CONFIG_PATH } from '../domain/queue-template.js';
import { repoParams, type Octokit } from '../githost/github/github-client.js';
import { httpStatus } from '../githost/github/github-errors.js';
import type { RepoConfigProblem } from '../service/repo-settings/repo-config.js';

/** The check run on a commit that changed `.github/mergeq.yml`: what became of the file there. */
export const REPO_CONFIG_CHECK_NAME = 'mergeq config';
/** The commit status said instead when the App may not write check runs (no `checks: write`). */
export const REPO_CONFIG_STATUS_CONTEXT = 'mergeq/config';
/** GitHub cuts a status description at 140 characters. */
const MAX_DESCRIPTION = 140;
/** GitHub takes at most 50 annotations per request. */
const MAX_ANNOTATIONS = 50;

export interface RepoConfigOutcome {
  ok: boolean;
  /** One line: the first problem, or what was applied. */
  title: string;
  /** Every problem on its line (annotations), or every change (the summary). */
  problems: readonly RepoConfigProblem[];
  changes: readonly string[];
}

/**
 * Says on the commit what became of the file: a check run `mergeq config` — failing with an
 * annotation on each offending line, or passing with the list of what changed — or, when the App
 * lacks the checks permission (GitHub answers 403), the commit status `mergeq/config` as before.
 */
export async function reportRepoConfig(octokit: Octokit, repo: RepoRef, sha: string, outcome: RepoConfigOutcome): Promise<'check' | 'status'> {
  try {
    await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...repoParams(repo),
      name: REPO_CONFIG_CHECK_NAME,
      head_sha: sha,
      status: 'completed',
      conclusion: outcome.ok ? 'success' : 'failure',
      output: {
        title: outcome.title,
        summary: summary(outcome),
        annotations: outcome.problems.slice(0, MAX_ANNOTATIONS).map((p) => ({ path: REPO_CONFIG_PATH, start_line: p.line, end_line: p.line, annotation_level: 'failure' as const, message: p.message })),
      },
    });
    return 'check';
  } catch (err) {
    if (httpStatus(err) !== 403) throw err;
  }
  const cut = outcome.title.length > MAX_DESCRIPTION ? `${outcome.title.slice(0, MAX_DESCRIPTION - 1)}…` : outcome.title;
  await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', { ...repoParams(repo), sha, state: outcome.ok ? 'success' : 'failure', context: REPO_CONFIG_STATUS_CONTEXT, description: cut });
  return 'status';
}

function summary(outcome: RepoConfigOutcome): string {
  if (!outcome.ok) return [`Nothing changed: ${REPO_CONFIG_PATH} does not validate.`, '', ...outcome.problems.map((p) => `- line ${p.line}: ${p.message}`)].join('\n');
  if (outcome.changes.length === 0) return 'Nothing changed: every queue already had these settings.';
  return ['What changed:', '', ...outcome.changes.map((c) => `- ${c}`)].join('\n');
}

import { fileSettingsSource, REPO_CONFIG_PATH } from '../domain/queue-template.js';
import type { RepoRef } from '../domain/repo.js';
import { repoParams, type Octokit } from '../githost/github/github-client.js';
import { readRepoFile } from '../githost/github/repo-file.js';
import type { AppliedRepoConfig } from '../service/repo-settings/repo-config-service.js';
import type { AppDeps } from './app-deps.js';

/** The commit status that reports what became of the file at that commit. */
export const REPO_CONFIG_STATUS_CONTEXT = 'mergeq/config';
/** GitHub cuts a status description at 140 characters. */
const MAX_DESCRIPTION = 140;

/** Whether a push's commits added, changed or removed the file. */
export function touchesRepoConfig(commits: readonly { added?: string[]; modified?: string[]; removed?: string[] }[]): boolean {
  return commits.some((c) => [...(c.added ?? []), ...(c.modified ?? []), ...(c.removed ?? [])].includes(REPO_CONFIG_PATH));
}

/**
 * Reads the file at `sha` of the default branch and applies it; one commit status on `sha` says the
 * outcome: failure naming the line of the first problem (and nothing changed), or success with what
 * changed. No file: what it managed is released, and a status says so only if there was any.
 */
export async function applyRepoConfig(deps: AppDeps, octokit: Octokit, repo: RepoRef, sha: string): Promise<void> {
  const config = deps.repoConfig;
  if (!config) return;
  const text = await readRepoFile(octokit, repo, REPO_CONFIG_PATH, sha);
  const parsed = text === null ? null : config.parse(text);
  if (parsed && !parsed.ok) {
    deps.logger.info({ repo: `${repo.owner}/${repo.name}`, sha, problem: parsed.problem }, `${REPO_CONFIG_PATH} does not validate; nothing changed`);
    await postStatus(octokit, repo, sha, 'failure', `${REPO_CONFIG_PATH} ${parsed.problem}`);
    return;
  }
  const org = await deps.orgs.forOwner(repo.host, repo.owner);
  const applied = await config.service.apply(org, repo, fileSettingsSource(sha), parsed ? parsed.config : null);
  if (parsed || applied.released > 0) await postStatus(octokit, repo, sha, 'success', summary(applied, parsed === null));
}

/** The file's state on the default branch's head, when the App is installed on the repository. */
export async function applyRepoConfigAtHead(deps: AppDeps, octokit: Octokit, repo: RepoRef): Promise<void> {
  if (!deps.repoConfig) return;
  const { data } = await octokit.request('GET /repos/{owner}/{repo}', repoParams(repo));
  const branch = (data as { default_branch: string }).default_branch;
  const { data: ref } = await octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...repoParams(repo), ref: `heads/${branch}` });
  const sha = (ref as { object: { sha: string } }).object.sha;
  if ((await readRepoFile(octokit, repo, REPO_CONFIG_PATH, sha)) === null) return;
  await applyRepoConfig(deps, octokit, repo, sha);
}

function summary(a: AppliedRepoConfig, removed: boolean): string {
  if (removed) return `${REPO_CONFIG_PATH} removed: ${a.released} queue(s) and template(s) are managed through the API again`;
  const parts = [`${a.queuesCreated} queue(s) created`, `${a.queuesUpdated} updated`, `${a.templates} pattern template(s)`];
  if (a.released > 0) parts.push(`${a.released} no longer managed`);
  return `${REPO_CONFIG_PATH} applied: ${parts.join(', ')}`;
}

async function postStatus(octokit: Octokit, repo: RepoRef, sha: string, state: 'success' | 'failure', description: string): Promise<void> {
  const cut = description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION - 1)}…` : description;
  await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', { ...repoParams(repo), sha, state, context: REPO_CONFIG_STATUS_CONTEXT, description: cut });
}
